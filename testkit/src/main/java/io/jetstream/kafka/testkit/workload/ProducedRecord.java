package io.jetstream.kafka.testkit.workload;

/**
 * What the verifier needs to recognise one produced record at the destination: where it landed at the source, its
 * sequence id and fingerprints of its content (see {@link RecordHashes}).
 *
 * @param offset      offset in the source partition
 * @param sequence    sequence id carried in the {@link RecordFactory#SEQUENCE_HEADER} header
 * @param keyHash     {@link RecordHashes#bytes} of the key
 * @param valueHash   {@link RecordHashes#bytes} of the value
 * @param headersHash {@link RecordHashes#headers} of all headers
 * @param timestamp   record timestamp, epoch milliseconds
 */
public record ProducedRecord(long offset, long sequence, long keyHash, long valueHash, long headersHash,
                             long timestamp) {
}
