# /// tfdist
# cluster = { chief = 1, worker = 4, ps = 1 }
# [expect]
# default = { raises = "NotImplementedError", match = "`tf.compat.v1.distribute.experimental.ParameterServerStrategy` currently only works with the tf.Estimator API", task = "chief:0" }
# "tf1.15" = { not-applicable = "TF 1.15 runs graph mode by default, where this strategy (the one tf.estimator uses) does not refuse its scope; Keras on it there is not run here" }
# ///
# --8<-- [start:example]
import tensorflow as tf

resolver = tf.distribute.cluster_resolver.TFConfigClusterResolver()
if resolver.task_type in ("worker", "ps"):  # every task runs this file: these ones only serve
    tf.distribute.Server(resolver.cluster_spec(), job_name=resolver.task_type,
                         task_index=resolver.task_id, protocol="grpc", start=True).join()

# The chief connects to the cluster and creates the parameter-server strategy of Estimator code
# (tf.compat.v1 since TF 2.4) for a Keras model
tf.config.experimental_connect_to_cluster(resolver, job_name=resolver.task_type, task_index=resolver.task_id)
strategy = tf.compat.v1.distribute.experimental.ParameterServerStrategy(resolver)
with strategy.scope():
    model = tf.keras.Sequential([tf.keras.Input((3,)), tf.keras.layers.Dense(1)])
    model.compile(tf.keras.optimizers.SGD(0.01), "mse")
x = tf.ones([64, 3])
model.fit(tf.data.Dataset.from_tensor_slices((x, tf.reduce_sum(x, 1, keepdims=True))).batch(8), epochs=2, verbose=0)
# --8<-- [end:example]
