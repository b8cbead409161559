# /// tfdist
# cluster = { chief = 1, worker = 4, ps = 1 }
# [expect]
# default = "passes"
# "tf2.4" = { raises = "ValueError", match = "The `experimental_distribute_dataset` method must be called inside a `tf.function` passed to `create_per_worker_dataset`", task = "chief:0" }
# "tf2.5" = { raises = "NotImplementedError", match = "Only `DatasetCreator` input is supported in `ParameterServerStrategy` at this time", task = "chief:0" }
# "tf2.21-keras3" = { raises = "ValueError", match = "To use this dataset, you need to pass this dataset to ClusterCoordinator.create_per_worker_dataset", task = "chief:0" }
# "tf1.15" = { not-applicable = "TF 1.15 has no ParameterServerStrategy with a ClusterCoordinator (tf.distribute.experimental.coordinator)" }
# ///
# --8<-- [start:example]
import tensorflow as tf

resolver = tf.distribute.cluster_resolver.TFConfigClusterResolver()
if resolver.task_type in ("worker", "ps"):  # every task runs this file: these ones only serve
    tf.distribute.Server(resolver.cluster_spec(), job_name=resolver.task_type,
                         task_index=resolver.task_id, protocol="grpc", start=True).join()

strategy = tf.distribute.experimental.ParameterServerStrategy(resolver)

# A dataset made here, in the chief, handed to fit as with any other strategy
x = tf.ones([64, 3])
dataset = tf.data.Dataset.from_tensor_slices((x, tf.reduce_sum(x, 1, keepdims=True))).batch(8).repeat()

for units in (1, 2):  # a second model, another output shape
    with strategy.scope():
        model = tf.keras.Sequential([tf.keras.Input((3,)), tf.keras.layers.Dense(units)])
        model.compile(tf.keras.optimizers.SGD(0.01), "mse")
    history = model.fit(dataset, epochs=2, steps_per_epoch=50, verbose=0)
    losses = history.history["loss"]
    # the losses themselves differ from run to run: 4 workers update the variables in no fixed order
    print(units, "output(s):", len(losses), "epochs, loss fell:", losses[1] < losses[0])
    assert len(losses) == 2 and losses[1] < losses[0]
# --8<-- [end:example]
