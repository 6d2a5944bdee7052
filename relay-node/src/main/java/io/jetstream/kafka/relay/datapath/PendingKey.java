package io.jetstream.kafka.relay.datapath;

/** What an ACK names: the frame's origin node and its batch (or metadata) id. */
record PendingKey(String originNodeId, long id) {
}
