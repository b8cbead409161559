# /// tfdist
# cluster = { chief = 1, worker = 4, ps = 1 }
# [expect]
# default = { raises = "TypeError", match = "__init__\\(\\) missing 1 required positional argument: 'cluster_resolver'", task = "chief:0" }
# "tf1.15" = { not-applicable = "in TF 1.15 this name is the Estimator strategy, whose cluster_resolver is optional" }
# ///
# --8<-- [start:example]
import tensorflow as tf

resolver = tf.distribute.cluster_resolver.TFConfigClusterResolver()
if resolver.task_type in ("worker", "ps"):  # every task runs this file: these ones only serve
    tf.distribute.Server(resolver.cluster_spec(), job_name=resolver.task_type,
                         task_index=resolver.task_id, protocol="grpc", start=True).join()

# The chief, as Estimator code and tutorials of TF 1 created the strategy: from TF_CONFIG, no argument
strategy = tf.distribute.experimental.ParameterServerStrategy()
# --8<-- [end:example]
