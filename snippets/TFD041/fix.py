# /// tfdist
# cluster = { chief = 1, worker = 4, ps = 1 }
# [expect]
# default = "passes"
# "tf1.15" = { not-applicable = "TF 1.15 has no ParameterServerStrategy with a ClusterCoordinator (tf.distribute.experimental.coordinator)" }
# ///
# --8<-- [start:example]
import tensorflow as tf

resolver = tf.distribute.cluster_resolver.TFConfigClusterResolver()
if resolver.task_type in ("worker", "ps"):  # every task runs this file: these ones only serve
    tf.distribute.Server(resolver.cluster_spec(), job_name=resolver.task_type,
                         task_index=resolver.task_id, protocol="grpc", start=True).join()

strategy = tf.distribute.experimental.ParameterServerStrategy(resolver)
coordinator = tf.distribute.experimental.coordinator.ClusterCoordinator(strategy)


def dataset_fn(rows):
    # Everything that makes the dataset happens inside the function: each worker runs it and
    # builds a dataset of its own.
    return tf.data.Dataset.from_tensor_slices(tf.ones([64, rows])).batch(4).repeat()


for rows in (3, 5):  # a second model shape: a second dataset made the same way
    with strategy.scope():
        w = tf.Variable(tf.zeros([rows]))

    iterator = iter(coordinator.create_per_worker_dataset(lambda: dataset_fn(rows)))

    @tf.function
    def step(it):
        def replica_fn(batch):
            w.assign_add(tf.reduce_sum(batch, 0))
        strategy.run(replica_fn, args=(next(it),))

    for _ in range(100):
        coordinator.schedule(step, args=(iterator,))
    coordinator.join()
    print(rows, "columns: w =", w.numpy(), "on", w.device.split("/device")[0])
    assert (w.numpy() == 100 * 4).all()  # 100 steps of a batch of 4 rows of ones
# --8<-- [end:example]
