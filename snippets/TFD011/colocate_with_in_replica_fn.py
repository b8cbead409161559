# /// tfdist
# [expect]
# default = "passes"
# ///
# --8<-- [start:example]
import tensorflow as tf

with tf.Graph().as_default():  # graph code, as TF 1 programs and an Estimator's model_fn build it
    with tf.compat.v1.Session() as session:  # this machine's devices: every GPU, or else the CPU's
        found = session.list_devices()
    devices = [d.name for d in found if d.device_type == "GPU"] or [d.name for d in found if d.device_type == "CPU"]
    strategy = tf.distribute.MirroredStrategy(devices)

    with strategy.scope():
        weight = tf.Variable(2.0, name="weight")
        bias = tf.Variable([1.0, 2.0], name="bias")  # a second variable, of another shape

    def replica_fn():  # the replica context: each replica colocates with its own copy of each variable
        replica = tf.cast(tf.distribute.get_replica_context().replica_id_in_sync_group, tf.float32)
        with tf.compat.v1.colocate_with(weight):
            scaled = weight * replica
        with tf.compat.v1.colocate_with(bias):
            shifted = bias + replica
        return scaled, shifted

    # strategy.run: experimental_run_v2 on TF 1.15 to 2.1; before, call_for_each_replica (in the scope)
    run = getattr(strategy, "run", None) or getattr(strategy, "experimental_run_v2", None)
    with strategy.scope():
        scaled, shifted = (run or strategy.extended.call_for_each_replica)(replica_fn)
    local = getattr(strategy, "experimental_local_results", None) or strategy.unwrap  # unwrap: TF 1.13
    placed = [t.device for t in local(scaled)]
    print("scaled on:", placed)
    assert len(set(placed)) == 4  # one op per replica, each on its replica's device
    with tf.compat.v1.Session() as session:
        session.run(tf.compat.v1.global_variables_initializer())
        for stage in range(2):  # a second session.run on the same graph
            got_scaled, got_shifted = session.run([local(scaled), local(shifted)])
            print("stage", stage, "scaled:", [float(s) for s in got_scaled],
                  "shifted:", [[float(x) for x in s] for s in got_shifted])
            assert [float(s) for s in got_scaled] == [0.0, 2.0, 4.0, 6.0]
            assert [[float(x) for x in s] for s in got_shifted] == [[1.0 + r, 2.0 + r] for r in range(4)]
# --8<-- [end:example]
