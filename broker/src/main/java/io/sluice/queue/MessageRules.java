package io.sluice.queue;

import java.math.BigDecimal;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Pattern;

/** SQS's rules for what a message may contain and for the numbers a send or receive may carry. */
public final class MessageRules {
    public static final int MAX_ATTRIBUTES = 10;
    public static final int MAX_DELAY_SECONDS = 900;
    public static final int MAX_VISIBILITY_SECONDS = 43_200;
    public static final int MAX_WAIT_SECONDS = 20;
    public static final int MAX_MESSAGES_PER_RECEIVE = 10;
    private static final Pattern ATTRIBUTE_NAME = Pattern.compile("[A-Za-z0-9_.\\-]{1,256}");
    private static final Pattern DATA_TYPE = Pattern.compile("(String|Number|Binary)(\\..+)?");
    private static final String INVALID_CHARACTERS = "Invalid characters found. Valid values:"
            + " #x9 | #xA | #xD | #x20 to #xD7FF | #xE000 to #xFFFD | #x10000 to #x10FFFF";

    private MessageRules() {}

    /** Body characters must be ones XML allows, since SQS carries bodies in XML. */
    public static void checkBody(String body) {
        if (body == null || body.isEmpty()) {
            throw SqsException.missingParameter("MessageBody");
        }
        if (!allowedCharacters(body)) {
            throw new SqsException(ErrorCode.INVALID_MESSAGE_CONTENTS, INVALID_CHARACTERS);
        }
    }

    public static boolean allowedCharacters(String s) {
        for (int i = 0; i < s.length(); ) {
            int c = s.codePointAt(i);
            boolean ok = c == 0x9
                    || c == 0xA
                    || c == 0xD
                    || (c >= 0x20 && c <= 0xD7FF)
                    || (c >= 0xE000 && c <= 0xFFFD)
                    || (c >= 0x10000 && c <= 0x10FFFF);
            if (!ok) {
                return false;
            }
            i += Character.charCount(c);
        }
        return true;
    }

    /** Names, types and values of user message attributes. */
    public static void checkAttributes(Map<String, MessageAttributeValue> attributes) {
        if (attributes.size() > MAX_ATTRIBUTES) {
            throw SqsException.invalidParameter("Number of message attributes [" + attributes.size()
                    + "] exceeds the allowed maximum [" + MAX_ATTRIBUTES + "].");
        }
        for (Map.Entry<String, MessageAttributeValue> e : attributes.entrySet()) {
            checkAttributeName(e.getKey());
            checkAttributeValue(e.getKey(), e.getValue());
        }
    }

    static void checkAttributeName(String name) {
        String lower = name.toLowerCase(Locale.ROOT);
        if (!ATTRIBUTE_NAME.matcher(name).matches()
                || name.startsWith(".")
                || name.endsWith(".")
                || name.contains("..")
                || lower.startsWith("aws.")
                || lower.startsWith("amazon.")) {
            throw SqsException.invalidParameter("Message (user) attribute name '" + name + "' is invalid."
                    + " Names can contain alphanumeric characters, hyphens, underscores and periods,"
                    + " must not start or end with a period, must not have consecutive periods,"
                    + " and must not start with AWS. or Amazon.");
        }
    }

    static void checkAttributeValue(String name, MessageAttributeValue v) {
        String type = v.dataType();
        if (type == null || type.isEmpty()) {
            throw SqsException.invalidParameter(
                    "The message attribute '" + name + "' must contain non-empty message attribute type.");
        }
        if (type.length() > 256 || !DATA_TYPE.matcher(type).matches()) {
            throw SqsException.invalidParameter("The type of message (user) attribute '" + name
                    + "' is invalid. You must use only the following supported type prefixes: Binary, Number, String.");
        }
        if (v.isBinary()) {
            if (v.binaryValue() == null || v.binaryValue().length == 0) {
                throw SqsException.invalidParameter(
                        "The message attribute '" + name + "' with type 'Binary' must use field 'Binary'.");
            }
            return;
        }
        String s = v.stringValue();
        if (s == null || s.isEmpty()) {
            throw SqsException.invalidParameter(
                    "The message attribute '" + name + "' with type '" + type + "' must use field 'String'.");
        }
        if (!allowedCharacters(s)) {
            // InvalidMessageContents is the body's error; an attribute's value is a parameter value.
            throw SqsException.invalidParameter(
                    "Message (user) attribute '" + name + "' value is invalid. " + INVALID_CHARACTERS);
        }
        if (type.equals("Number") || type.startsWith("Number.")) {
            try {
                BigDecimal n = new BigDecimal(s.trim());
                if (n.precision() > 38) {
                    throw new NumberFormatException();
                }
            } catch (NumberFormatException ex) {
                throw SqsException.invalidParameter(
                        "Can't cast the value of message (user) attribute '" + name + "' to a number.");
            }
        }
    }

    /** Only AWSTraceHeader, a String, is a message system attribute a sender may set. */
    public static void checkSystemAttributes(Map<String, MessageAttributeValue> attributes) {
        for (Map.Entry<String, MessageAttributeValue> e : attributes.entrySet()) {
            if (!e.getKey().equals("AWSTraceHeader")) {
                throw SqsException.invalidParameter("Message system attribute name '" + e.getKey() + "' is invalid.");
            }
            MessageAttributeValue v = e.getValue();
            if (!"String".equals(v.dataType())
                    || v.stringValue() == null
                    || v.stringValue().isEmpty()) {
                throw SqsException.invalidParameter(
                        "Message system attribute 'AWSTraceHeader' must be a non-empty String.");
            }
            if (!allowedCharacters(v.stringValue())) {
                throw SqsException.invalidParameter(
                        "Message system attribute 'AWSTraceHeader' value is invalid. " + INVALID_CHARACTERS);
            }
        }
    }

    /** Body plus attribute names, types and values in UTF-8 bytes, as SQS counts a message's size. */
    public static int size(String body, Map<String, MessageAttributeValue> attributes) {
        int size = Utf8.length(body);
        for (Map.Entry<String, MessageAttributeValue> e : attributes.entrySet()) {
            size += Utf8.length(e.getKey()) + e.getValue().sizeInBytes();
        }
        return size;
    }

    public static void checkSize(int size, int maximumMessageSize) {
        if (size > maximumMessageSize) {
            throw SqsException.invalidParameter(
                    "One or more parameters are invalid. Reason: Message must be shorter than " + maximumMessageSize
                            + " bytes.");
        }
    }

    public static int delaySeconds(Integer requested, int queueDefault) {
        return inRange(
                "DelaySeconds", requested, queueDefault, 0, MAX_DELAY_SECONDS, "DelaySeconds must be >= 0 and <= 900.");
    }

    public static int maxNumberOfMessages(Integer requested) {
        return inRange(
                "MaxNumberOfMessages",
                requested,
                1,
                1,
                MAX_MESSAGES_PER_RECEIVE,
                "Must be between 1 and 10, if provided.");
    }

    public static int waitTimeSeconds(Integer requested, int queueDefault) {
        return inRange(
                "WaitTimeSeconds",
                requested,
                queueDefault,
                0,
                MAX_WAIT_SECONDS,
                "Must be >= 0 and <= 20, if provided.");
    }

    public static int visibilityTimeout(Integer requested, int queueDefault) {
        return inRange(
                "VisibilityTimeout",
                requested,
                queueDefault,
                0,
                MAX_VISIBILITY_SECONDS,
                "Must be >= 0 and <= 43200, if provided.");
    }

    /** The requested number, or {@code absent} when none was given; InvalidParameterValue, with SQS's {@code reason}, outside min..max. */
    private static int inRange(String parameter, Integer requested, int absent, int min, int max, String reason) {
        if (requested == null) {
            return absent;
        }
        if (requested < min || requested > max) {
            throw SqsException.invalidParameter(
                    "Value " + requested + " for parameter " + parameter + " is invalid." + " Reason: " + reason);
        }
        return requested;
    }
}
