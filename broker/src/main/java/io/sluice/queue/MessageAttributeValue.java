package io.sluice.queue;

import java.util.Arrays;
import java.util.Objects;

/**
 * One message attribute as SQS defines it: a data type ({@code String}, {@code Number},
 * {@code Binary}, optionally with a custom {@code .suffix}) and a string or a binary value.
 */
public record MessageAttributeValue(String dataType, String stringValue, byte[] binaryValue) {

    public static MessageAttributeValue ofString(String dataType, String value) {
        return new MessageAttributeValue(dataType, value, null);
    }

    public static MessageAttributeValue ofBinary(String dataType, byte[] value) {
        return new MessageAttributeValue(dataType, null, value);
    }

    /** True for Binary and Binary.*: these travel as bytes, everything else as a string. */
    public boolean isBinary() {
        return dataType.equals("Binary") || dataType.startsWith("Binary.");
    }

    /** Bytes this attribute counts towards the message size limit (type and value; the name is added by the caller). */
    public int sizeInBytes() {
        int valueBytes = isBinary()
                ? (binaryValue == null ? 0 : binaryValue.length)
                : Utf8.length(stringValue == null ? "" : stringValue);
        return Utf8.length(dataType) + valueBytes;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof MessageAttributeValue other
                && dataType.equals(other.dataType)
                && Objects.equals(stringValue, other.stringValue)
                && Arrays.equals(binaryValue, other.binaryValue);
    }

    @Override
    public int hashCode() {
        return dataType.hashCode() * 31 + Arrays.hashCode(binaryValue) + Objects.hashCode(stringValue);
    }
}
