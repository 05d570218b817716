package io.sluice.queue;

import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.util.Arrays;
import java.util.Base64;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * What a receipt handle names: the queue, the partition, the message and the receive token.
 * It never names a node, so a handle stays valid after its partition moves. The text form is
 * authenticated with an HMAC so that a forged or altered handle is refused rather than acted on.
 */
public record ReceiptHandle(String queueName, int partition, String messageId, long token) {

    private static final Base64.Encoder ENCODER = Base64.getUrlEncoder().withoutPadding();
    private static final Base64.Decoder DECODER = Base64.getUrlDecoder();
    private static final int MAC_BYTES = 16;

    /** Encodes and signs handles with one key; thread-safe. */
    public static final class Codec {
        private final SecretKeySpec key;
        private final ThreadLocal<Mac> macs;

        public Codec(byte[] secret) {
            this.key = new SecretKeySpec(secret, "HmacSHA256");
            this.macs = ThreadLocal.withInitial(this::newMac);
        }

        public String encode(ReceiptHandle h) {
            byte[] queue = h.queueName.getBytes(StandardCharsets.UTF_8);
            byte[] id = h.messageId.getBytes(StandardCharsets.UTF_8);
            ByteBuffer buf = ByteBuffer.allocate(2 + queue.length + 4 + 2 + id.length + 8 + MAC_BYTES);
            buf.putShort((short) queue.length)
                    .put(queue)
                    .putInt(h.partition)
                    .putShort((short) id.length)
                    .put(id)
                    .putLong(h.token);
            byte[] mac = mac(buf.array(), buf.position());
            buf.put(mac, 0, MAC_BYTES);
            return ENCODER.encodeToString(buf.array());
        }

        /** @throws SqsException ReceiptHandleIsInvalid when the text is not a handle this broker issued */
        public ReceiptHandle decode(String text) {
            try {
                byte[] raw = DECODER.decode(text);
                if (raw.length < 2 + 4 + 2 + 8 + MAC_BYTES) {
                    throw invalid(text);
                }
                int signedLength = raw.length - MAC_BYTES;
                byte[] expected = mac(raw, signedLength);
                byte[] given = Arrays.copyOfRange(raw, signedLength, raw.length);
                if (!MessageDigest.isEqual(Arrays.copyOf(expected, MAC_BYTES), given)) {
                    throw invalid(text);
                }
                ByteBuffer buf = ByteBuffer.wrap(raw, 0, signedLength);
                byte[] queue = new byte[buf.getShort()];
                buf.get(queue);
                int partition = buf.getInt();
                byte[] id = new byte[buf.getShort()];
                buf.get(id);
                long token = buf.getLong();
                return new ReceiptHandle(
                        new String(queue, StandardCharsets.UTF_8),
                        partition,
                        new String(id, StandardCharsets.UTF_8),
                        token);
            } catch (IllegalArgumentException | BufferUnderflowException | NegativeArraySizeException e) {
                throw invalid(text);
            }
        }

        private byte[] mac(byte[] data, int length) {
            Mac mac = macs.get();
            mac.update(data, 0, length);
            return mac.doFinal();
        }

        private Mac newMac() {
            try {
                Mac mac = Mac.getInstance("HmacSHA256");
                mac.init(key);
                return mac;
            } catch (GeneralSecurityException e) {
                throw new IllegalStateException("every JDK has HmacSHA256", e);
            }
        }
    }

    public static SqsException invalid(String text) {
        return new SqsException(
                ErrorCode.RECEIPT_HANDLE_IS_INVALID,
                "The input receipt handle \"" + text + "\" is not a valid receipt handle.");
    }
}
