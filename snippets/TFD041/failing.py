# /// tfdist
# cluster = { chief = 1, worker = 4, ps = 1 }
# [expect]
# default = { raises = "InputError", match = "Unable to parse tensor proto" }
# "tf1.15" = { not-applicable = "TF 1.15 has no ParameterServerStrategy with a ClusterCoordinator (tf.distribute.experimental.coordinator)" }
# "tf2.15" = { raises = "ClosureInputError", match = "Unable to parse tensor proto" }
# "tf2.21-keras3" = { raises = "ClosureInputError", match = "Unable to parse tensor proto" }
# "tf2.21-tfkeras" = { raises = "ClosureInputError", match = "Unable to parse tensor proto" }
# ///
# --8<-- [start:example]
import tensorflow as tf

resolver = tf.distribute.cluster_resolver.TFConfigClusterResolver()
if resolver.task_type in ("worker", "ps"):  # every task runs this file: these ones only serve
    tf.distribute.Server(resolver.cluster_spec(), job_name=resolver.task_type,
                         task_index=resolver.task_id, protocol="grpc", start=True).join()

strategy = tf.distribute.experimental.ParameterServerStrategy(resolver)
coordinator = tf.distribute.experimental.coordinator.ClusterCoordinator(strategy)

# The dataset is built here, in the coordinator's process ...
dataset = tf.data.Dataset.from_tensor_slices(tf.ones([64, 3])).batch(4).repeat()


def dataset_fn():
    return dataset  # ... and each worker is handed that object


with strategy.scope():
    w = tf.Variable(tf.zeros([3]))

iterator = iter(coordinator.create_per_worker_dataset(dataset_fn))


@tf.function
def step(it):
    def replica_fn(batch):
        w.assign_add(tf.reduce_sum(batch, 0))
    strategy.run(replica_fn, args=(next(it),))


for _ in range(100):
    coordinator.schedule(step, args=(iterator,))
coordinator.join()  # raises the error a worker met while making its dataset
# --8<-- [end:example]
