# /// tfdist
# cluster = { chief = 1, worker = 4, ps = 1 }
# [expect]
# default = "passes"
# "tf2.4" = { not-applicable = "TF 2.4's Keras has no tf.keras.utils.experimental.DatasetCreator: parameter-server training there is a custom loop with a ClusterCoordinator (TFD041)" }
# "tf2.21-keras3" = { not-applicable = "Keras 3 has no DatasetCreator, and its fit does not take a dataset under this strategy (fit_on_a_dataset.py): use tf-keras, or a custom loop with a ClusterCoordinator (TFD041)" }
# "tf1.15" = { not-applicable = "TF 1.15 has no ParameterServerStrategy with a ClusterCoordinator (tf.distribute.experimental.coordinator)" }
# ///
# --8<-- [start:example]
import tensorflow as tf

resolver = tf.distribute.cluster_resolver.TFConfigClusterResolver()
if resolver.task_type in ("worker", "ps"):  # every task runs this file: these ones only serve
    tf.distribute.Server(resolver.cluster_spec(), job_name=resolver.task_type,
                         task_index=resolver.task_id, protocol="grpc", start=True).join()

# The TensorFlow 2 strategy: it is given the cluster, and Keras drives it through a coordinator
strategy = tf.distribute.experimental.ParameterServerStrategy(resolver)


def dataset_fn(input_context):
    # Each worker calls this and builds its own dataset; fit takes the function, wrapped
    x = tf.ones([64, 3])
    return tf.data.Dataset.from_tensor_slices((x, tf.reduce_sum(x, 1, keepdims=True))).batch(8).repeat()


for units in (1, 2):  # a second model, another output shape
    with strategy.scope():
        model = tf.keras.Sequential([tf.keras.Input((3,)), tf.keras.layers.Dense(units)])
        model.compile(tf.keras.optimizers.SGD(0.01), "mse")
    history = model.fit(tf.keras.utils.experimental.DatasetCreator(dataset_fn), epochs=2, steps_per_epoch=50,
                        verbose=0)
    losses = history.history["loss"]
    # the losses themselves differ from run to run: 4 workers update the variables in no fixed order
    print(units, "output(s):", len(losses), "epochs, loss fell:", losses[1] < losses[0], "kernel on",
          model.layers[-1].kernel.device.split("/device")[0])
    assert len(losses) == 2 and losses[1] < losses[0]
# --8<-- [end:example]
