package io.sluice.it.fuzz;

import io.sluice.it.fuzz.FuzzRequest.Body;
import io.sluice.it.fuzz.FuzzRequest.Expected;
import io.sluice.it.fuzz.HttpRequestBuilder.Framing;
import io.sluice.it.fuzz.Tree.Arr;
import io.sluice.it.fuzz.Tree.Bool;
import io.sluice.it.fuzz.Tree.JsonStyle;
import io.sluice.it.fuzz.Tree.Member;
import io.sluice.it.fuzz.Tree.Null;
import io.sluice.it.fuzz.Tree.Num;
import io.sluice.it.fuzz.Tree.Obj;
import io.sluice.it.fuzz.Tree.Str;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.function.Function;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.Tuple;

/**
 * Generators of hostile requests for a running node, over both SQS protocols. Queue names come
 * from a name space of their own ({@code fz-...}): nothing generated can name a queue outside it.
 *
 * <p>Long polls are the one thing kept tame: a wait longer than a second would stall a sending
 * thread (and outlast the test node's short idle timeout), so WaitTimeSeconds and the
 * ReceiveMessageWaitTimeSeconds attribute only ever get 0, 1 or invalid values.
 */
final class SqsFuzz {

    /** What the generators need to know about the node under test. */
    record Target(
            String hostHeader,
            String baseUrl,
            String account,
            List<String> receiptHandles,
            int maxRequestBytes,
            int maxHeaderBytes,
            int maxInitialLineBytes) {}

    /** Queues the fuzzing may create, change, purge and delete; the first three exist when it starts. */
    static final List<String> QUEUES =
            List.of("fz-std", "fz-fifo.fifo", "fz-dlq", "fz-a", "fz-b", "fz-c.fifo", "fz-d.fifo");

    static final String[] ACTIONS = {
        "CreateQueue",
        "GetQueueUrl",
        "ListQueues",
        "DeleteQueue",
        "GetQueueAttributes",
        "SetQueueAttributes",
        "PurgeQueue",
        "SendMessage",
        "SendMessageBatch",
        "ReceiveMessage",
        "DeleteMessage",
        "DeleteMessageBatch",
        "ChangeMessageVisibility",
        "ChangeMessageVisibilityBatch",
        "TagQueue",
        "UntagQueue",
        "ListQueueTags",
        "AddPermission",
        "RemovePermission",
        "ListDeadLetterSourceQueues",
        "StartMessageMoveTask",
        "CancelMessageMoveTask",
        "ListMessageMoveTasks"
    };

    private static final String JSON_TYPE = "application/x-amz-json-1.0";
    private static final String FORM_TYPE = "application/x-www-form-urlencoded; charset=utf-8";

    // ------------------------------------------------------------------ value pools

    private static final List<String> TEXTS = List.of(
            "",
            " ",
            "a",
            "null",
            "true",
            "0",
            "-1",
            "\u0000",
            "\t\r\n",
            "\u00e9",
            "\u4e2d\u6587",
            "\ud83d\ude00",
            "\ud800",
            "\udc00x",
            "\ufffe",
            "\uffff",
            "\u2028",
            "\u0085",
            "<xml>&amp;</xml>",
            "]]>",
            "%",
            "%zz",
            "%00",
            "&",
            "=",
            "+",
            "'\"",
            "\\",
            "{}",
            "[]",
            "{\"a\":1}",
            "${jndi:ldap://x/a}",
            "../../etc/passwd",
            "AWS.SimpleQueueService",
            "All",
            ".*",
            "*",
            "a.*",
            "\u0001\u0002\u0003",
            "a".repeat(256),
            "a".repeat(257),
            "\u00e9".repeat(300));
    private static final List<String> BIG_TEXTS =
            List.of("x".repeat(100_000), "\u00e9".repeat(50_000), "\u0000".repeat(10_000), "%".repeat(20_000));

    private static final List<String> BODIES = List.of(
            "hello",
            "",
            " ",
            "\u0000",
            "\u0001\u0002",
            "\ufffe",
            "\uffff",
            "\ud800",
            "\udc00\ud800",
            "\ud83d\ude00",
            "<a>&amp;]]></a>",
            "\r\n\t",
            "\u2028",
            "x".repeat(1000),
            "{\"json\":true}",
            "%41%42",
            "+ +");
    private static final List<String> BIG_BODIES = List.of(
            "x".repeat(262_144),
            "x".repeat(1_048_576),
            "x".repeat(1_048_577),
            "\u00e9".repeat(524_288),
            "\u00e9".repeat(524_289),
            "\ud83d\ude00".repeat(262_144),
            "\ud83d\ude00".repeat(262_145),
            "\u0000".repeat(100_000));

    /** Numbers as JSON literals, several of which are no valid JSON (NaN, 01, .5, 0x10, 1_0). */
    private static final List<String> NUMBER_LITERALS = List.of(
            "0",
            "1",
            "-1",
            "10",
            "60",
            "900",
            "43200",
            "2147483647",
            "2147483648",
            "-2147483649",
            "9223372036854775807",
            "9223372036854775808",
            "1.0",
            "1.5",
            "-0",
            "0.0",
            "1e3",
            "1E+2",
            "1e-400",
            "1e400",
            "-1e308",
            "0.0000001",
            "123456789012345678901234567890",
            "1" + "0".repeat(1200),
            "NaN",
            "Infinity",
            "-Infinity",
            "01",
            "+1",
            ".5",
            "1.",
            "0x10",
            "1_0");

    private static final List<String> NUMBER_STRINGS = List.of(
            "0",
            "1",
            "-1",
            "10",
            "900",
            "2147483648",
            "abc",
            "",
            " 1",
            "1 ",
            "+1",
            "1.5",
            "1e3",
            "\u0663",
            "0x10",
            "99999999999999999999",
            "NaN",
            "-0",
            "00000000000000000001",
            "\uff11");
    /** WaitTimeSeconds: 0, 1 or refused; never a real wait beyond a second. */
    private static final List<String> WAIT_LITERALS = List.of(
            "0", "1", "-1", "21", "1.5", "1e400", "2147483648", "0.0", "1.0", "-0", "NaN", "99999999999999999999");

    private static final List<String> WAIT_STRINGS = List.of("0", "1", "", "x", "21", " 1", "-5", "1.5", "1e1");

    private static final List<String> ATTRIBUTE_NAMES = List.of(
            "All",
            "VisibilityTimeout",
            "Policy",
            "QueueArn",
            "ApproximateNumberOfMessages",
            "ApproximateNumberOfMessagesNotVisible",
            "FifoQueue",
            "RedrivePolicy",
            "KmsDataKeyReusePeriodSeconds",
            "CreatedTimestamp",
            "bogus",
            "",
            "all",
            "ALL",
            "SentTimestamp",
            "MessageGroupId",
            "SequenceNumber",
            "AWSTraceHeader",
            ".*");
    private static final List<String> MESSAGE_ATTRIBUTE_NAMES = List.of(
            "a",
            "attr.1",
            "AWS.x",
            "amazon.x",
            "",
            ".a",
            "a.",
            "a..b",
            "a".repeat(256),
            "a".repeat(257),
            "\u00fc",
            "All",
            ".*",
            "a.*",
            "x y",
            "\u0000");
    private static final List<String> DATA_TYPES = List.of(
            "String",
            "Number",
            "Binary",
            "String.custom",
            "Number.int",
            "Binary.png",
            "string",
            "",
            "Foo",
            "String.",
            "Number.",
            "a".repeat(300),
            "String.\u0000");
    private static final List<String> BINARIES = List.of(
            "aGVsbG8=",
            "",
            "!!!",
            "aGVsbG8",
            "====",
            Base64.getEncoder().encodeToString(new byte[300_000]),
            "AA==AA==",
            "\u00e9");
    private static final List<String> BATCH_IDS =
            List.of("a", "1", "a".repeat(80), "a".repeat(81), "", "bad id", "\u00fc", "a-b_c", "a", "1", ".", "\u0000");
    private static final List<String> TAG_KEYS =
            List.of("k", "", "a".repeat(128), "a".repeat(129), "aws:x", "\u0000", "team", "k k", "\u00e9");
    private static final List<String> TAG_VALUES =
            List.of("v", "", "a".repeat(256), "a".repeat(257), "\u0000", "\u0001", "\ud800", "<&>");
    private static final List<String> LABELS =
            List.of("perm1", "", "a".repeat(80), "a".repeat(81), "bad label!", "p-1_2");
    private static final List<String> ACCOUNT_IDS =
            List.of("000000000000", "123456789012", "abc", "", "*", "1234567890123");
    private static final List<String> PERMISSION_ACTIONS =
            List.of("SendMessage", "*", "ReceiveMessage", "Bogus", "", "sqs:SendMessage", "DeleteQueue");

    // ------------------------------------------------------------------ the node's vocabulary

    private final Target target;
    private final Arbitrary<String> text;
    private final Arbitrary<String> queueName;
    private final Arbitrary<String> queueUrl;
    /** URLs DeleteQueue gets: never one of the three queues the fuzzing starts with, which would then be gone for good. */
    private final Arbitrary<String> disposableQueueUrl;

    private final Arbitrary<String> arn;
    private final Arbitrary<String> handle;
    private final Arbitrary<Tree> number;
    private final Arbitrary<Tree> wait;
    private final Arbitrary<Tree> anyTree;
    /** Values of another type than a number or string: what a wait parameter gets as a wrong type. */
    private final Arbitrary<Tree> structure;

    private final Map<String, List<Param>> actions = new LinkedHashMap<>();

    /** A parameter of an action: its right value, and what it gets when the client sends a wrong type. */
    private record Param(String name, Arbitrary<Tree> value, Arbitrary<Tree> wrong, int presencePercent) {}

    SqsFuzz(Target target) {
        this.target = target;
        text = Choice.weighted(
                Tuple.of(350, Arbitraries.of(TEXTS)),
                Tuple.of(200, Arbitraries.strings().all().ofMaxLength(24)),
                Tuple.of(200, Arbitraries.strings().ascii().ofMaxLength(24)),
                Tuple.of(
                        150,
                        Arbitraries.strings().alpha().numeric().ofMinLength(1).ofMaxLength(12)),
                Tuple.of(2, Arbitraries.of(BIG_TEXTS)));
        Arbitrary<String> disposable = Choice.weighted(
                Tuple.of(1, Arbitraries.of(QUEUES.subList(3, QUEUES.size()))),
                Tuple.of(
                        1,
                        Combinators.combine(
                                        Arbitraries.strings()
                                                .withCharRange('a', 'e')
                                                .ofMinLength(1)
                                                .ofMaxLength(2),
                                        Arbitraries.of("", ".fifo"))
                                .as((n, suffix) -> "fz-" + n + suffix)));
        Arbitrary<String> fzName =
                Choice.weighted(Tuple.of(70, Arbitraries.of(QUEUES.subList(0, 3))), Tuple.of(30, disposable));
        queueName = Choice.weighted(
                Tuple.of(75, fzName),
                Tuple.of(
                        15,
                        Arbitraries.of(
                                "",
                                " ",
                                "fz std",
                                "fz/std",
                                "fz-std ",
                                " fz-std",
                                "FZ-STD",
                                "x".repeat(81),
                                "fz-" + "x".repeat(78),
                                ".fifo",
                                "fz-a.FIFO",
                                "fz-\u00e9",
                                "fz-\u0000",
                                "fz-%41",
                                "fz-a.fifo.fifo",
                                "fz-a.fifox",
                                "-",
                                "_",
                                "fz-<b>",
                                "fz-" + "x".repeat(72) + ".fifo")),
                Tuple.of(10, text.map(t -> "fz-" + t)));
        String base = target.baseUrl();
        String account = target.account();
        List<Function<String, String>> urlForms = List.of(
                n -> base + "/" + account + "/" + n,
                n -> base + "/" + account + "/" + n,
                n -> "/" + account + "/" + n,
                n -> n,
                n -> "http://elsewhere.example:1/" + account + "/" + n,
                n -> "https://sqs.us-east-1.amazonaws.com/" + account + "/" + n,
                n -> base + "/123456789012/" + n,
                n -> base + "/queue/" + n,
                n -> base + "/" + account + "/" + n + "/",
                n -> base + "/" + account + "/" + n + "/extra",
                n -> base + "/" + account + "/" + n + "?Action=DeleteQueue",
                n -> base + "/" + account + "/" + n + "#frag",
                n -> base + "//" + account + "//" + n);
        Arbitrary<String> badUrl = Choice.weighted(
                Tuple.of(
                        3,
                        Arbitraries.of(
                                "",
                                "/",
                                "http://",
                                "://",
                                base,
                                base + "/",
                                base + "/" + account + "/",
                                "?",
                                "#",
                                "%",
                                "%zz",
                                "\u0000",
                                "http://[::1",
                                "x".repeat(100_000))),
                Tuple.of(1, text));
        queueUrl = Choice.weighted(
                Tuple.of(
                        85,
                        Combinators.combine(Arbitraries.of(urlForms), queueName).as(Function::apply)),
                Tuple.of(15, badUrl));
        disposableQueueUrl = Choice.weighted(
                Tuple.of(
                        85,
                        Combinators.combine(Arbitraries.of(urlForms), disposable)
                                .as(Function::apply)),
                Tuple.of(15, badUrl));
        arn = Choice.weighted(
                Tuple.of(70, fzName.map(n -> "arn:aws:sqs:us-east-1:" + account + ":" + n)),
                Tuple.of(
                        30,
                        Arbitraries.of(
                                "arn:aws:sqs:us-east-1:" + account + ":fz-none",
                                "arn:aws:sqs:eu-west-1:" + account + ":fz-dlq",
                                "arn:aws:sqs:us-east-1:123456789012:fz-dlq",
                                "arn:aws:sns:us-east-1:" + account + ":fz-dlq",
                                "",
                                "arn",
                                "arn:aws:sqs:us-east-1:" + account + ":",
                                "arn:aws:sqs:::",
                                "arn:aws:sqs:us-east-1:" + account + ":fz-dlq:extra")));
        handle = receiptHandles(target.receiptHandles());
        number = Choice.weighted(
                Tuple.of(60, Arbitraries.of(NUMBER_LITERALS).map(Num::new)),
                Tuple.of(40, Arbitraries.of(NUMBER_STRINGS).map(Str::new)));
        wait = Choice.weighted(
                Tuple.of(60, Arbitraries.of(WAIT_LITERALS).map(Num::new)),
                Tuple.of(40, Arbitraries.of(WAIT_STRINGS).map(Str::new)));
        Arbitrary<Tree> safeScalar = Choice.weighted(
                Tuple.of(4, text.map(Str::new)),
                Tuple.of(
                        2,
                        Arbitraries.of("0", "-1", "1.5", "1e400", "2147483648", "NaN", "true")
                                .map(Num::new)),
                Tuple.of(1, Arbitraries.of(new Bool(true), new Bool(false))),
                Tuple.of(1, Arbitraries.just(new Null())));
        // Two levels of nesting, built once: jqwik's recursive() would build new arbitraries per value.
        Arbitrary<Tree> oneLevel = Choice.weighted(Tuple.of(3, safeScalar), Tuple.of(1, nest(safeScalar)));
        anyTree = Choice.weighted(Tuple.of(3, safeScalar), Tuple.of(1, nest(oneLevel)));
        structure = nest(Choice.weighted(
                Tuple.of(1, Arbitraries.of(new Bool(true), new Null())), Tuple.of(1, nest(safeScalar))));
        defineActions();
    }

    private Arbitrary<Tree> nest(Arbitrary<Tree> inner) {
        Arbitrary<Tree> arr = inner.list().ofMaxSize(4).map(Arr::new);
        Arbitrary<Tree> obj = Combinators.combine(
                        Arbitraries.of("a", "QueueUrl", "", "DataType", "Id", "__proto__"), inner)
                .as(Tree::member)
                .list()
                .ofMaxSize(4)
                .map(Obj::new);
        return Choice.oneOf(arr, obj);
    }

    /** Real handles, and the same cut short, altered by a character, padded, or made up. */
    private static Arbitrary<String> receiptHandles(List<String> real) {
        Arbitrary<String> genuine = real.isEmpty() ? Arbitraries.just("AQEB") : Arbitraries.of(real);
        Arbitrary<String> mutated = Combinators.combine(
                        genuine,
                        Arbitraries.integers().between(0, 9),
                        Arbitraries.integers().between(0, 1_000_000))
                .as((h, how, at) -> {
                    int i = h.isEmpty() ? 0 : at % h.length();
                    return switch (how) {
                        case 0 -> h.substring(0, i);
                        case 1 -> h.substring(i);
                        case 2 -> h.substring(0, i) + (char) ('A' + at % 26) + h.substring(Math.min(h.length(), i + 1));
                        case 3 -> h + "=";
                        case 4 -> h + h;
                        case 5 -> h.substring(0, i) + "%" + h.substring(i);
                        case 6 -> h.substring(0, i) + "\u0000" + h.substring(i);
                        case 7 -> h.replace('A', 'B');
                        case 8 -> " " + h + " ";
                        default -> new StringBuilder(h).reverse().toString();
                    };
                });
        Arbitrary<String> madeUp = Arbitraries.bytes()
                .array(byte[].class)
                .ofMaxSize(400)
                .map(b -> Base64.getEncoder().encodeToString(b));
        return Choice.weighted(
                Tuple.of(20, genuine),
                Tuple.of(45, mutated),
                Tuple.of(20, madeUp),
                Tuple.of(
                        15,
                        Arbitraries.of(
                                "",
                                " ",
                                "null",
                                "x".repeat(100_000),
                                "%00",
                                "\ud800",
                                "AQEB",
                                "====",
                                "a.b.c",
                                "\u00e9\u00e9")));
    }

    // ------------------------------------------------------------------ actions and their parameters

    private void defineActions() {
        Param url = param("QueueUrl", queueUrl.map(Str::new), 95);
        action(
                "CreateQueue",
                param("QueueName", queueName.map(Str::new), 95),
                param("Attributes", queueAttributes(), 50),
                param("tags", tags(), 20));
        action(
                "GetQueueUrl",
                param("QueueName", queueName.map(Str::new), 95),
                param("QueueOwnerAWSAccountId", Arbitraries.of(ACCOUNT_IDS).map(Str::new), 20));
        action(
                "ListQueues",
                param(
                        "QueueNamePrefix",
                        Choice.weighted(Tuple.of(1, Arbitraries.of("fz", "fz-", "")), Tuple.of(1, text))
                                .map(Str::new),
                        60),
                param("MaxResults", number, 50),
                param("NextToken", text.map(Str::new), 30));
        action("DeleteQueue", param("QueueUrl", disposableQueueUrl.map(Str::new), 95));
        action(
                "GetQueueAttributes",
                url,
                param(
                        "AttributeNames",
                        Choice.weighted(Tuple.of(3, Arbitraries.of(ATTRIBUTE_NAMES)), Tuple.of(1, text))
                                .list()
                                .ofMaxSize(6)
                                .map(this::strings),
                        70));
        action("SetQueueAttributes", url, param("Attributes", queueAttributes(), 90));
        action("PurgeQueue", url);
        Arbitrary<Tree> groupId = Choice.weighted(
                        Tuple.of(2, Arbitraries.of("g1", "g2", "", "a".repeat(129), "g 1")), Tuple.of(1, text))
                .map(Str::new);
        Arbitrary<Tree> body = Choice.weighted(
                        Tuple.of(600, Arbitraries.of(BODIES)),
                        Tuple.of(395, text),
                        Tuple.of(5, Arbitraries.of(BIG_BODIES)))
                .map(Str::new);
        action(
                "SendMessage",
                url,
                param("MessageBody", body, 90),
                param("DelaySeconds", number, 30),
                param("MessageAttributes", messageAttributes(), 30),
                param("MessageSystemAttributes", systemAttributes(), 10),
                param("MessageGroupId", groupId, 30),
                param("MessageDeduplicationId", groupId, 20));
        Arbitrary<Tree> batchId = Arbitraries.of(BATCH_IDS).map(Str::new);
        Arbitrary<Tree> sendEntry = entry(
                param("Id", batchId, 90),
                param("MessageBody", body, 90),
                param("DelaySeconds", number, 20),
                param("MessageAttributes", messageAttributes(), 20),
                param("MessageGroupId", groupId, 30),
                param("MessageDeduplicationId", groupId, 20));
        action("SendMessageBatch", url, param("Entries", entries(sendEntry), 90));
        action(
                "ReceiveMessage",
                url,
                param("MaxNumberOfMessages", number, 50),
                param("VisibilityTimeout", number, 30),
                waitParam("WaitTimeSeconds", 30),
                param(
                        "AttributeNames",
                        Arbitraries.of(ATTRIBUTE_NAMES).list().ofMaxSize(4).map(this::strings),
                        20),
                param(
                        "MessageSystemAttributeNames",
                        Arbitraries.of(ATTRIBUTE_NAMES).list().ofMaxSize(4).map(this::strings),
                        20),
                param(
                        "MessageAttributeNames",
                        Arbitraries.of(MESSAGE_ATTRIBUTE_NAMES)
                                .list()
                                .ofMaxSize(4)
                                .map(this::strings),
                        20),
                param("ReceiveRequestAttemptId", groupId, 15));
        Arbitrary<Tree> handles = handle.map(Str::new);
        action("DeleteMessage", url, param("ReceiptHandle", handles, 90));
        action(
                "DeleteMessageBatch",
                url,
                param("Entries", entries(entry(param("Id", batchId, 90), param("ReceiptHandle", handles, 90))), 90));
        action(
                "ChangeMessageVisibility",
                url,
                param("ReceiptHandle", handles, 90),
                param("VisibilityTimeout", number, 85));
        action(
                "ChangeMessageVisibilityBatch",
                url,
                param(
                        "Entries",
                        entries(entry(
                                param("Id", batchId, 90),
                                param("ReceiptHandle", handles, 90),
                                param("VisibilityTimeout", number, 80))),
                        90));
        action("TagQueue", url, param("Tags", tags(), 90));
        action(
                "UntagQueue",
                url,
                param("TagKeys", Arbitraries.of(TAG_KEYS).list().ofMaxSize(5).map(this::strings), 90));
        action("ListQueueTags", url);
        action(
                "AddPermission",
                url,
                param("Label", Arbitraries.of(LABELS).map(Str::new), 90),
                param(
                        "AWSAccountIds",
                        Arbitraries.of(ACCOUNT_IDS).list().ofMaxSize(4).map(this::strings),
                        85),
                param(
                        "Actions",
                        Arbitraries.of(PERMISSION_ACTIONS).list().ofMaxSize(4).map(this::strings),
                        85));
        action("RemovePermission", url, param("Label", Arbitraries.of(LABELS).map(Str::new), 90));
        action(
                "ListDeadLetterSourceQueues",
                url,
                param("MaxResults", number, 40),
                param("NextToken", text.map(Str::new), 20));
        action(
                "StartMessageMoveTask",
                param("SourceArn", arn.map(Str::new), 90),
                param("DestinationArn", arn.map(Str::new), 40),
                param("MaxNumberOfMessagesPerSecond", number, 40));
        action(
                "CancelMessageMoveTask",
                param(
                        "TaskHandle",
                        Choice.weighted(Tuple.of(1, handle), Tuple.of(1, text)).map(Str::new),
                        90));
        action("ListMessageMoveTasks", param("SourceArn", arn.map(Str::new), 90), param("MaxResults", number, 40));
    }

    private void action(String name, Param... params) {
        actions.put(name, List.of(params));
    }

    private Param param(String name, Arbitrary<Tree> value, int presencePercent) {
        return new Param(name, value, anyTree, presencePercent);
    }

    private Param waitParam(String name, int presencePercent) {
        return new Param(name, wait, structure, presencePercent);
    }

    private Tree strings(List<String> items) {
        List<Tree> out = new ArrayList<>(items.size());
        items.forEach(s -> out.add(new Str(s)));
        return new Arr(out);
    }

    /** Queue attributes as name/value pairs; each value from its name's own pool. */
    private Arbitrary<Tree> queueAttributes() {
        String dlq = "arn:aws:sqs:us-east-1:" + target.account() + ":fz-dlq";
        String deep = "{\"a\":".repeat(3000) + "1" + "}".repeat(3000);
        Map<String, List<String>> pools = new LinkedHashMap<>();
        pools.put("VisibilityTimeout", List.of("0", "30", "43200", "43201", "-1", "abc", "99999999999999999999", " 5"));
        pools.put("DelaySeconds", List.of("0", "900", "901", "-1", "1.5"));
        pools.put("MaximumMessageSize", List.of("1024", "1048576", "1023", "1048577", "262144"));
        pools.put("MessageRetentionPeriod", List.of("60", "1209600", "59", "1209601"));
        pools.put("ReceiveMessageWaitTimeSeconds", List.of("0", "21", "-1", "x", "", "0.5"));
        pools.put(
                "Policy",
                List.of(
                        "",
                        "{}",
                        "{\"Version\":\"2012-10-17\",\"Statement\":[]}",
                        "{",
                        "[]",
                        "not json",
                        deep,
                        "{\"Statement\":[{\"Sid\":1}]}",
                        "{\"Statement\":\"x\"}",
                        "x".repeat(100_000)));
        pools.put(
                "RedrivePolicy",
                List.of(
                        "{\"deadLetterTargetArn\":\"" + dlq + "\",\"maxReceiveCount\":\"5\"}",
                        "{\"deadLetterTargetArn\":\"" + dlq + "\",\"maxReceiveCount\":1}",
                        "{\"deadLetterTargetArn\":\"" + dlq + "\",\"maxReceiveCount\":0}",
                        "{\"deadLetterTargetArn\":\"" + dlq + "\",\"maxReceiveCount\":1e99}",
                        "{\"deadLetterTargetArn\":\"" + dlq + "\",\"maxReceiveCount\":2147483648}",
                        "{\"deadLetterTargetArn\":\"" + dlq + "\",\"maxReceiveCount\":\"x\"}",
                        "{\"deadLetterTargetArn\":\"" + dlq + "\",\"maxReceiveCount\":[1]}",
                        "{\"deadLetterTargetArn\":\"" + dlq + "\",\"maxReceiveCount\":null}",
                        "{\"deadLetterTargetArn\":\"arn:aws:sqs:us-east-1:" + target.account()
                                + ":fz-std\",\"maxReceiveCount\":3}",
                        "{\"deadLetterTargetArn\":\"arn:aws:sqs:us-east-1:" + target.account()
                                + ":fz-none\",\"maxReceiveCount\":3}",
                        "{\"deadLetterTargetArn\":7,\"maxReceiveCount\":3}",
                        "{\"deadLetterTargetArn\":{}}",
                        "",
                        "{}",
                        "[]",
                        "{",
                        "null",
                        "\"x\"",
                        deep));
        pools.put(
                "RedriveAllowPolicy",
                List.of(
                        "{\"redrivePermission\":\"allowAll\"}",
                        "{\"redrivePermission\":\"denyAll\"}",
                        "{\"redrivePermission\":\"byQueue\",\"sourceQueueArns\":[\"" + dlq + "\"]}",
                        "{\"redrivePermission\":\"byQueue\",\"sourceQueueArns\":" + "[\"a\",".repeat(11) + "\"a\"]}",
                        "{\"redrivePermission\":\"byQueue\",\"sourceQueueArns\":\"x\"}",
                        "{\"redrivePermission\":5}",
                        "{",
                        "",
                        "{\"redrivePermission\":\"byQueue\",\"sourceQueueArns\":[[[]]]}",
                        deep));
        pools.put("FifoQueue", List.of("true", "false", "TRUE", "yes", ""));
        pools.put("ContentBasedDeduplication", List.of("true", "false", "maybe"));
        pools.put("DeduplicationScope", List.of("queue", "messageGroup", "x"));
        pools.put("FifoThroughputLimit", List.of("perQueue", "perMessageGroupId", "x"));
        pools.put("KmsMasterKeyId", List.of("alias/aws/sqs", "", "\u0000", "k".repeat(3000)));
        pools.put("KmsDataKeyReusePeriodSeconds", List.of("60", "86400", "59", "86401"));
        pools.put("SqsManagedSseEnabled", List.of("true", "false", "1"));
        pools.put("Bogus", List.of("1"));
        pools.put("", List.of(""));
        pools.put("visibilitytimeout", List.of("30"));
        pools.put("QueueArn", List.of("arn:x"));
        List<Arbitrary<Member>> pairs = new ArrayList<>();
        pools.forEach((name, values) -> pairs.add(Arbitraries.of(values).map(v -> Tree.member(name, Tree.str(v)))));
        Arbitrary<Member> pair = Choice.oneOf(pairs);
        return pair.list().ofMaxSize(5).map(Obj::new);
    }

    private Arbitrary<Tree> tags() {
        Arbitrary<Member> tag = Combinators.combine(
                        Choice.weighted(Tuple.of(3, Arbitraries.of(TAG_KEYS)), Tuple.of(1, text)),
                        Choice.weighted(Tuple.of(3, Arbitraries.of(TAG_VALUES)), Tuple.of(1, text)))
                .as((k, v) -> Tree.member(k, Tree.str(v)));
        return Choice.weighted(
                Tuple.of(9, tag.list().ofMaxSize(5).map(Obj::new)),
                Tuple.of(1, tag.list().ofMinSize(45).ofMaxSize(60).map(Obj::new)));
    }

    private Arbitrary<Tree> messageAttributes() {
        Arbitrary<Tree> stringValue = Choice.weighted(
                        Tuple.of(2, text),
                        Tuple.of(1, Arbitraries.of(NUMBER_STRINGS)),
                        Tuple.of(1, Arbitraries.of(NUMBER_LITERALS)))
                .map(Str::new);
        Arbitrary<Tree> value = Combinators.combine(
                        Choice.orNull(Arbitraries.of(DATA_TYPES).map(Str::new), 0.1),
                        Choice.orNull(stringValue, 0.4),
                        Choice.orNull(Arbitraries.of(BINARIES).map(Str::new), 0.7),
                        Choice.orNull(stringValue.list().ofMaxSize(2).map(l -> (Tree) new Arr(l)), 0.95),
                        Choice.orNull(
                                Arbitraries.of(BINARIES)
                                        .map(b -> (Tree) new Str(b))
                                        .list()
                                        .ofMaxSize(2)
                                        .map(l -> (Tree) new Arr(l)),
                                0.95))
                .as((type, s, b, sl, bl) -> {
                    List<Member> members = new ArrayList<>();
                    if (s != null) {
                        members.add(Tree.member("StringValue", s));
                    }
                    if (b != null) {
                        members.add(Tree.member("BinaryValue", b));
                    }
                    if (sl != null) {
                        members.add(Tree.member("StringListValues", sl));
                    }
                    if (bl != null) {
                        members.add(Tree.member("BinaryListValues", bl));
                    }
                    if (type != null) {
                        members.add(Tree.member("DataType", type));
                    }
                    return (Tree) new Obj(members);
                });
        Arbitrary<Member> attribute = Combinators.combine(
                        Choice.weighted(Tuple.of(3, Arbitraries.of(MESSAGE_ATTRIBUTE_NAMES)), Tuple.of(1, text)),
                        Choice.weighted(Tuple.of(19, value), Tuple.of(1, anyTree)))
                .as(Tree::member);
        return Choice.weighted(
                Tuple.of(9, attribute.list().ofMaxSize(4).map(Obj::new)),
                Tuple.of(1, attribute.list().ofMinSize(10).ofMaxSize(12).map(Obj::new)));
    }

    private Arbitrary<Tree> systemAttributes() {
        Arbitrary<Tree> trace = Combinators.combine(Arbitraries.of("String", "Number", ""), text)
                .as((type, v) ->
                        Tree.obj(Tree.member("DataType", Tree.str(type)), Tree.member("StringValue", Tree.str(v))));
        return Combinators.combine(Arbitraries.of("AWSTraceHeader", "Bogus", ""), trace)
                .as((name, v) -> Tree.obj(Tree.member(name, v)));
    }

    private Arbitrary<Tree> entry(Param... fields) {
        return members(List.of(fields), 0).map(Obj::new);
    }

    private Arbitrary<Tree> entries(Arbitrary<Tree> entry) {
        return Choice.weighted(
                Tuple.of(90, entry.list().ofMaxSize(10).map(Arr::new)),
                Tuple.of(8, entry.list().ofMinSize(11).ofMaxSize(12).map(Arr::new)),
                Tuple.of(2, anyTree));
    }

    /** The members of a call or an entry: each parameter present or not, rightly or wrongly typed, plus strangers. */
    private Arbitrary<List<Member>> members(List<Param> params, int maxStrangers) {
        List<Arbitrary<Member>> each = new ArrayList<>();
        for (Param p : params) {
            Arbitrary<Tree> value = Choice.weighted(Tuple.of(88, p.value), Tuple.of(12, p.wrong));
            each.add(Choice.orNull(value.map(v -> Tree.member(p.name, v)), 1 - p.presencePercent / 100.0));
        }
        Arbitrary<Member> stranger = Combinators.combine(
                        Choice.weighted(
                                Tuple.of(
                                        1,
                                        Arbitraries.of(
                                                "Action",
                                                "Version",
                                                "QueueUrl",
                                                "MessageBody",
                                                "Id",
                                                "Attributes",
                                                "Entries",
                                                "ReceiptHandle",
                                                "QueueName",
                                                "Expires",
                                                "Signature")),
                                Tuple.of(2, text)),
                        anyTree)
                .as(Tree::member);
        Arbitrary<List<Member>> strangers = Choice.weighted(
                Tuple.of(3, Arbitraries.just(List.<Member>of())),
                Tuple.of(1, stranger.list().ofMinSize(1).ofMaxSize(Math.max(1, maxStrangers))));
        return Combinators.combine(Combinators.combine(each).as(l -> l), strangers)
                .as((known, extra) -> {
                    List<Member> out = new ArrayList<>();
                    for (Member m : known) {
                        if (m != null) {
                            out.add(m);
                        }
                    }
                    out.addAll(extra);
                    return out;
                });
    }

    /** A call: action and parameters. */
    record Call(String action, Obj params) {}

    private Arbitrary<Call> calls(List<String> names) {
        List<Arbitrary<Call>> each = new ArrayList<>();
        for (String name : names) {
            each.add(members(actions.get(name), 2).map(ms -> new Call(name, new Obj(ms))));
        }
        return Choice.oneOf(each);
    }

    // ------------------------------------------------------------------ requests

    /**
     * Every kind of request, in the proportions the bulk of the fuzzing uses: a generated call goes
     * out over both protocols (two requests), the other kinds as single requests.
     */
    Arbitrary<List<FuzzRequest>> requests() {
        List<String> all = List.of(ACTIONS);
        List<String> handles = List.of(
                "DeleteMessage", "ChangeMessageVisibility", "DeleteMessageBatch", "ChangeMessageVisibilityBatch");
        return Choice.weighted(
                Tuple.of(29, bothProtocols(calls(all), "json", "query-post")),
                Tuple.of(4, bothProtocols(calls(handles), "receipt-handle", "receipt-handle")),
                Tuple.of(5, unknownActions().map(List::of)),
                Tuple.of(6, malformedForms().map(List::of)),
                Tuple.of(5, invalidUtf8().map(List::of)),
                Tuple.of(4, deepAndHugeJson().map(List::of)),
                Tuple.of(8, headerAbuse().map(List::of)),
                Tuple.of(7, framingAbuse().map(List::of)));
    }

    /**
     * The same requests for a node that checks signatures: most carry an Authorization header or
     * presigned query parameters, broken in every part a SigV4 parser reads, some of them naming
     * the node's real access key and a current date so that only the signature itself is wrong
     * (then the body is read and checked too). None is correctly signed.
     */
    Arbitrary<List<FuzzRequest>> signedRequests(String accessKeyId) {
        DateTimeFormatter amzDate =
                DateTimeFormatter.ofPattern("yyyyMMdd'T'HHmmss'Z'").withZone(ZoneOffset.UTC);
        Arbitrary<String> date = Choice.weighted(
                Tuple.of(
                        12,
                        Arbitraries.of(0L, 0L, 0L, -60L, -1_200L, 1_200L, -86_400L * 400)
                                .map(offset -> amzDate.format(Instant.now().plusSeconds(offset)))),
                Tuple.of(
                        2,
                        Arbitraries.of(
                                "",
                                "garbage",
                                "99991231T235959Z",
                                "20261201T000000",
                                "2026-12-01T00:00:00Z",
                                "00000000T000000Z",
                                "20261332T256161Z",
                                "20261201T000000Z\u0000",
                                "2".repeat(5000))));
        Arbitrary<String> key = Arbitraries.of(
                accessKeyId,
                accessKeyId,
                accessKeyId,
                "AKIDUNKNOWN",
                "",
                "x".repeat(3000),
                accessKeyId.toLowerCase(Locale.ROOT));
        // A credential scope for a given date: mostly well formed, so that the checks behind the parsing are reached.
        Arbitrary<Function<String, String>> credential = Combinators.combine(
                        key,
                        Choice.weighted(
                                Tuple.of(6, Arbitraries.just("us-east-1")),
                                Tuple.of(1, Arbitraries.of("", "\u00e9", "us-east-1/x"))),
                        Arbitraries.of("sqs", "sqs", "s3", ""),
                        Arbitraries.of("aws4_request", "aws4_request", "aws4_request", "", "x"),
                        Choice.weighted(
                                Tuple.of(6, Arbitraries.just(5)),
                                Tuple.of(1, Arbitraries.integers().between(1, 7))))
                .as((k, region, service, end, segments) -> d -> {
                    String[] parts = {k, d.length() >= 8 ? d.substring(0, 8) : d, region, service, end, "extra", "more"
                    };
                    return String.join("/", Arrays.copyOf(parts, segments));
                });
        Arbitrary<String> signedHeaders = Choice.weighted(
                Tuple.of(6, Arbitraries.just("host;x-amz-date")),
                Tuple.of(
                        1,
                        Arbitraries.of(
                                "host",
                                "",
                                ";",
                                "HOST;X-AMZ-DATE",
                                "host;host",
                                "x-a;".repeat(500),
                                "content-type;host;x-amz-date;x-amz-target",
                                "nonexistent",
                                "host;x-amz-date;content-length;transfer-encoding")));
        Arbitrary<String> signature = Choice.weighted(
                Tuple.of(6, Arbitraries.of("0".repeat(64), "ab".repeat(32))),
                Tuple.of(1, Arbitraries.of("", "zz", "f".repeat(1000), "\u00e9")));
        // The date of the scope and of X-Amz-Date: mostly one and the same, sometimes two.
        Arbitrary<String[]> dates = Combinators.combine(date, date, Arbitraries.of(true, true, true, false))
                .as((d, other, same) -> new String[] {d, same ? d : other});
        Arbitrary<List<String>> header = Combinators.combine(
                        Choice.weighted(
                                Tuple.of(12, Arbitraries.just("AWS4-HMAC-SHA256")),
                                Tuple.of(
                                        1,
                                        Arbitraries.of(
                                                "AWS4-HMAC-SHA512", "aws4-hmac-sha256", "", "AWS4-HMAC-SHA256x"))),
                        credential,
                        dates,
                        signedHeaders,
                        signature,
                        Choice.weighted(
                                Tuple.of(12, Arbitraries.just(", ")),
                                Tuple.of(1, Arbitraries.of(",", " , ", ",,", ", , ", "; "))),
                        Choice.orNull(Arbitraries.of("UNSIGNED-PAYLOAD", "0".repeat(64), "garbage"), 0.7),
                        Choice.weighted(Tuple.of(12, Arbitraries.just(0)), Tuple.of(1, Arbitraries.of(1, 2, 3, 4))))
                .as((algorithm, cred, d, signed, sig, sep, sha, drop) -> {
                    List<String> parts = new ArrayList<>(
                            List.of("Credential=" + cred.apply(d[0]), "SignedHeaders=" + signed, "Signature=" + sig));
                    if (drop > 0 && drop <= parts.size()) {
                        parts.remove(drop - 1);
                    }
                    List<String> lines = new ArrayList<>();
                    lines.add("Authorization: " + algorithm + " " + String.join(sep, parts));
                    if (drop != 4) {
                        lines.add("X-Amz-Date: " + d[1]);
                    }
                    if (sha != null) {
                        lines.add("X-Amz-Content-Sha256: " + sha);
                    }
                    return lines;
                });
        Arbitrary<String> presigned = Combinators.combine(
                        credential,
                        dates,
                        Choice.orNull(
                                Arbitraries.of(
                                        "900",
                                        "900",
                                        "0",
                                        "-1",
                                        "604800",
                                        "604801",
                                        "99999999999999999999",
                                        "1e3",
                                        "",
                                        "x"),
                                0.3),
                        signedHeaders,
                        signature,
                        Arbitraries.of("AWS4-HMAC-SHA256", "AWS4-HMAC-SHA256", "AWS4-HMAC-SHA256", "HMAC", ""),
                        Arbitraries.of(0, 0, 0, 0, 1, 2, 3, 4, 5, 6))
                .as((cred, d, expires, signed, sig, algorithm, drop) -> {
                    List<String[]> pairs = new ArrayList<>(List.of(
                            new String[] {"X-Amz-Algorithm", algorithm},
                            new String[] {"X-Amz-Credential", cred.apply(d[0])},
                            new String[] {"X-Amz-Date", d[1]},
                            new String[] {"X-Amz-SignedHeaders", signed},
                            new String[] {"X-Amz-Signature", sig}));
                    if (expires != null) {
                        pairs.add(new String[] {"X-Amz-Expires", expires});
                    }
                    if (drop > 0 && drop <= pairs.size()) {
                        pairs.remove(drop - 1);
                    }
                    return Tree.form(pairs, Tree.FormStyle.STRICT);
                });
        Arbitrary<Function<FuzzRequest, FuzzRequest>> decoration = Choice.weighted(
                Tuple.of(50, header.map(lines -> r -> r.withHeaders(lines))),
                Tuple.of(25, presigned.map(q -> r -> r.withQuery(q))),
                Tuple.of(
                        10,
                        Combinators.combine(header, presigned)
                                .as((lines, q) -> r -> r.withHeaders(lines).withQuery(q))),
                Tuple.of(15, Arbitraries.just(Function.identity())));
        return Combinators.combine(requests(), decoration).as((requests, decorate) -> {
            List<FuzzRequest> out = new ArrayList<>(requests.size());
            requests.forEach(r -> out.add(decorate.apply(r)));
            return out;
        });
    }

    /** One call, written in JSON and as a Query POST or GET. */
    private Arbitrary<List<FuzzRequest>> bothProtocols(
            Arbitrary<Call> calls, String jsonCategory, String queryCategory) {
        Arbitrary<Function<Call, FuzzRequest>> query =
                Choice.weighted(Tuple.of(3, queryPost(queryCategory)), Tuple.of(1, queryGet()));
        return Combinators.combine(calls, json(jsonCategory), query)
                .as((call, j, q) -> List.of(j.apply(call), q.apply(call)));
    }

    private HttpRequestBuilder http() {
        return new HttpRequestBuilder(target.hostHeader());
    }

    private Arbitrary<Function<Call, FuzzRequest>> json(String category) {
        Arbitrary<JsonStyle> style = Combinators.combine(
                        Arbitraries.of(false, true),
                        Arbitraries.of(false, false, false, true),
                        Arbitraries.of(false, true))
                .as(JsonStyle::new);
        Arbitrary<String> contentType = Choice.weighted(
                Tuple.of(85, Arbitraries.just(JSON_TYPE)),
                Tuple.of(
                        15,
                        Arbitraries.of(
                                "application/json",
                                "",
                                "text/plain",
                                "application/x-amz-json-1.1",
                                FORM_TYPE,
                                JSON_TYPE + "; charset=utf-8")));
        return Combinators.combine(
                        style,
                        contentType,
                        bodyCorruption(),
                        Arbitraries.of(
                                "/", "/", "/", "/" + target.account() + "/fz-std", "/x/y/z", "/?Action=ListQueues"))
                .as((st, type, corrupt, path) -> call -> {
                    HttpRequestBuilder b = http();
                    b.target = path;
                    b.header("Content-Type", type).header("X-Amz-Target", "AmazonSQS." + call.action);
                    b.header("X-Amz-Date", "20261201T000000Z");
                    b.body(corrupt.apply(Tree.json(call.params, st)));
                    return b.build(category, Expected.JSON, false, false);
                });
    }

    private Arbitrary<Function<Call, FuzzRequest>> queryPost(String category) {
        Arbitrary<String> contentType = Choice.weighted(
                Tuple.of(85, Arbitraries.just(FORM_TYPE)),
                Tuple.of(
                        15,
                        Arbitraries.of(
                                "application/x-www-form-urlencoded",
                                "APPLICATION/X-WWW-FORM-URLENCODED",
                                "",
                                "-",
                                "text/plain",
                                "multipart/form-data; boundary=x",
                                "application/x-www-form-urlencoded;;;;",
                                "application/x-www-form-urlencoded; charset=iso-8859-1",
                                JSON_TYPE)));
        return Combinators.combine(
                        formParts(),
                        contentType,
                        bodyCorruption(),
                        Arbitraries.of("/", "/", "/" + target.account() + "/fz-std", "/queue/fz-dlq"))
                .as((parts, type, corrupt, path) -> call -> {
                    HttpRequestBuilder b = http();
                    b.target = pathFor(call, path);
                    if (!type.equals("-")) { // "-": no Content-Type at all
                        b.header("Content-Type", type);
                    }
                    b.body(corrupt.apply(Tree.latin1OrUtf8(parts.render(call))));
                    return b.build(category, Expected.QUERY, false, false);
                });
    }

    /**
     * A Query request posted to a queue's URL names that queue when it has no QueueUrl: for a
     * DeleteQueue, never one of the queues the fuzzing starts with.
     */
    private static String pathFor(Call call, String path) {
        return call.action.equals("DeleteQueue")
                ? path.replace("/fz-std", "/fz-a").replace("/fz-dlq", "/fz-b")
                : path;
    }

    private Arbitrary<Function<Call, FuzzRequest>> queryGet() {
        return Combinators.combine(
                        formParts(),
                        Arbitraries.of("GET", "GET", "GET", "DELETE", "HEAD", "PUT"),
                        Arbitraries.of(
                                "/",
                                "/" + target.account() + "/fz-std",
                                "/" + target.account() + "/fz-none",
                                "/a/b/c/"))
                .as((parts, method, path) -> call -> {
                    HttpRequestBuilder b = http();
                    b.method = method;
                    b.target = pathFor(call, path) + "?" + parts.render(call);
                    b.framing = Framing.NONE;
                    return b.build(
                            "query-get",
                            method.equals("HEAD") ? Expected.NONE : Expected.QUERY,
                            false,
                            method.equals("HEAD"));
                });
    }

    /** How a call becomes form parameters: Version or not, odd indexes, encoding, Action where. */
    private record FormParts(long seed, double oddIndexes, Tree.FormStyle style, String version, int actionAt) {
        String render(Call call) {
            List<String[]> pairs = new ArrayList<>();
            Tree.flatten(call.action, call.params, new Random(seed), oddIndexes, pairs);
            String[] action = {"Action", call.action};
            pairs.add(Math.min(actionAt, pairs.size()), action);
            if (version != null) {
                pairs.add(new String[] {"Version", version});
            }
            return Tree.form(pairs, style);
        }
    }

    private Arbitrary<FormParts> formParts() {
        return Combinators.combine(
                        Arbitraries.longs(),
                        Arbitraries.of(0.0, 0.0, 0.0, 0.2),
                        Arbitraries.of(
                                Tree.FormStyle.STRICT,
                                Tree.FormStyle.STRICT,
                                Tree.FormStyle.LOOSE,
                                Tree.FormStyle.RAW_NON_ASCII),
                        Arbitraries.of("2012-11-05", "2012-11-05", "2012-11-05", null, "2008-01-01", "x"),
                        Arbitraries.of(0, 0, 0, 1, 99))
                .as(FormParts::new);
    }

    /** Most bodies go as written; some are cut, spliced, or given bytes no UTF-8 text has. */
    private Arbitrary<Function<byte[], byte[]>> bodyCorruption() {
        Arbitrary<Function<byte[], byte[]>> corrupt = Combinators.combine(
                        Arbitraries.integers().between(0, 7),
                        Arbitraries.integers().between(0, Integer.MAX_VALUE),
                        Arbitraries.of(INVALID_UTF8))
                .as((how, where, bad) -> bytes -> {
                    int at = bytes.length == 0 ? 0 : where % bytes.length;
                    return switch (how) {
                        case 0 -> slice(bytes, 0, at);
                        case 1 -> splice(bytes, at, bad);
                        case 2 -> splice(new byte[] {(byte) 0xEF, (byte) 0xBB, (byte) 0xBF}, 3, bytes);
                        case 3 -> splice(bytes, bytes.length, "}}]]\"\u0000garbage".getBytes(StandardCharsets.UTF_8));
                        case 4 -> splice(slice(bytes, 0, at), at, slice(bytes, at / 2, bytes.length));
                        case 5 -> new byte[0];
                        case 6 -> replace(bytes, at, (byte) (where >>> 24));
                        default -> splice(splice(new byte[] {'['}, 1, bytes), bytes.length + 1, new byte[] {']'});
                    };
                });
        return Choice.weighted(Tuple.of(85, Arbitraries.just(Function.identity())), Tuple.of(15, corrupt));
    }

    private static final List<byte[]> INVALID_UTF8 = List.of(
            new byte[] {(byte) 0xFF},
            new byte[] {(byte) 0xC0, (byte) 0x80},
            new byte[] {(byte) 0xED, (byte) 0xA0, (byte) 0x80},
            new byte[] {(byte) 0x80},
            new byte[] {(byte) 0xE2, (byte) 0x82},
            new byte[] {(byte) 0xF8, (byte) 0x88, (byte) 0x80, (byte) 0x80, (byte) 0x80},
            new byte[] {(byte) 0xF4, (byte) 0x90, (byte) 0x80, (byte) 0x80},
            new byte[] {(byte) 0xFE, (byte) 0xFF},
            new byte[] {(byte) 0xC3},
            new byte[] {0});

    private static byte[] slice(byte[] b, int from, int to) {
        byte[] out = new byte[Math.max(0, to - from)];
        System.arraycopy(b, from, out, 0, out.length);
        return out;
    }

    private static byte[] splice(byte[] b, int at, byte[] insert) {
        byte[] out = new byte[b.length + insert.length];
        System.arraycopy(b, 0, out, 0, at);
        System.arraycopy(insert, 0, out, at, insert.length);
        System.arraycopy(b, at, out, at + insert.length, b.length - at);
        return out;
    }

    private static byte[] replace(byte[] b, int at, byte value) {
        if (b.length == 0) {
            return b;
        }
        byte[] out = b.clone();
        out[at] = value;
        return out;
    }

    private Arbitrary<FuzzRequest> unknownActions() {
        Arbitrary<String> names = Choice.weighted(
                Tuple.of(
                        3,
                        Arbitraries.of(
                                "Bogus",
                                "",
                                "sendmessage",
                                "SENDMESSAGE",
                                "SendMessage ",
                                " SendMessage",
                                "Send\u00e9Message",
                                "SendMessage\u0000",
                                "__proto__",
                                "toString",
                                "constructor",
                                "getClass",
                                "CreateQueue.",
                                ".CreateQueue",
                                "ListQueues;",
                                "ListQueues\tx",
                                "AmazonSQS.ListQueues",
                                "x".repeat(5000),
                                "Publish",
                                "GetObject",
                                "ReceiveMessages",
                                "SendMessageBatchRequestEntry")),
                Tuple.of(1, text));
        Arbitrary<String> targets = Choice.weighted(
                Tuple.of(3, names.map(n -> "AmazonSQS." + n)),
                Tuple.of(
                        1,
                        Arbitraries.of(
                                "SendMessage",
                                "AmazonSQS",
                                "AmazonSQS.",
                                "amazonsqs.ListQueues",
                                "AmazonSQS..ListQueues",
                                "AmazonSNS.Publish",
                                "AmazonSQS.ListQueues,AmazonSQS.ListQueues",
                                "AmazonSQS.List Queues")),
                Tuple.of(1, names));
        int headLimit = target.maxHeaderBytes();
        Arbitrary<FuzzRequest> json = Combinators.combine(targets, anyTree).as((t, params) -> {
            HttpRequestBuilder b = http().header("Content-Type", JSON_TYPE).header("X-Amz-Target", t);
            b.body(Tree.json(
                    params instanceof Obj ? params : Tree.obj(Tree.member("QueueUrl", params)),
                    new JsonStyle(false, false, false)));
            // A target too long for the head limit leaves the server nothing to tell the protocol by.
            Expected expected = Tree.latin1OrUtf8(t).length > headLimit / 2 ? Expected.EITHER : protocolOf(t);
            return b.build("unknown-action", expected, false, expected == Expected.EITHER);
        });
        Arbitrary<FuzzRequest> query = Combinators.combine(names, Arbitraries.of(0, 1, 2, 3))
                .as((n, how) -> {
                    HttpRequestBuilder b = http().header("Content-Type", FORM_TYPE);
                    StringBuilder form = new StringBuilder();
                    switch (how) {
                        case 0 -> form.append("Action=");
                        case 1 -> form.append("Version=2012-11-05&Action=");
                        case 2 -> form.append("Action=ListQueues&Action=");
                        default -> form.append("action=");
                    }
                    Tree.percent(n, Tree.FormStyle.STRICT, form);
                    b.body(Tree.latin1OrUtf8(form.toString()));
                    return b.build("unknown-action", Expected.QUERY, false, false);
                });
        return Choice.oneOf(json, query);
    }

    /**
     * The protocol of a request with this X-Amz-Target value: JSON when the value is not empty once
     * the spaces and tabs around it are dropped (as HTTP reads a header); unknowable when it holds
     * control characters, which make the whole head invalid.
     */
    private static Expected protocolOf(String target) {
        for (int i = 0; i < target.length(); i++) {
            char c = target.charAt(i);
            if ((c < 0x20 && c != '\t') || c == 0x7F) {
                return Expected.EITHER;
            }
        }
        int from = 0;
        int to = target.length();
        while (from < to && (target.charAt(from) == ' ' || target.charAt(from) == '\t')) {
            from++;
        }
        while (to > from && (target.charAt(to - 1) == ' ' || target.charAt(to - 1) == '\t')) {
            to--;
        }
        return from == to ? Expected.QUERY : Expected.JSON;
    }

    private Arbitrary<FuzzRequest> malformedForms() {
        Arbitrary<String> segment = Choice.weighted(
                Tuple.of(
                        6,
                        Arbitraries.of(
                                "Action=ListQueues",
                                "Action=SendMessage",
                                "Action=GetQueueAttributes",
                                "QueueUrl=%2F" + target.account() + "%2Ffz-std",
                                "QueueUrl=fz-std",
                                "MessageBody=hi",
                                "AttributeName.1=All",
                                "Version=2012-11-05",
                                "%",
                                "%%%%",
                                "=",
                                "==",
                                "&",
                                "a",
                                "%zz=1",
                                "a=%C3%28",
                                "a=%ED%A0%80",
                                "a=%F4%90%80%80",
                                "a=%00",
                                "%41ction=ListQueues",
                                "Action=List%51ueues",
                                "+=+",
                                "Action=ListQueues;QueueNamePrefix=a",
                                "MessageBody=%E2%82",
                                "Attribute.1.Name=VisibilityTimeout",
                                "Attribute..Name=x",
                                "Attribute.1.=x",
                                "Attribute.Name=x",
                                "Attribute.1.Value",
                                "Entries=",
                                "SendMessageBatchRequestEntry.1.Id=a",
                                "SendMessageBatchRequestEntry.1.MessageBody=b",
                                "MessageAttribute.1.Name=a",
                                "MessageAttribute.1.Value.DataType=String",
                                "MessageAttribute.1.Value.StringValue=%",
                                "Tag.1.Key=k",
                                "Tag.1.Value=%FF",
                                "a=\u00e9",
                                "QueueName=fz-a",
                                "Action=CreateQueue",
                                "Action=TagQueue",
                                "Action=SendMessageBatch")),
                Tuple.of(2, text.map(t -> {
                    StringBuilder sb = new StringBuilder();
                    Tree.percent(t, Tree.FormStyle.RAW_NON_ASCII, sb);
                    return sb.toString();
                })),
                Tuple.of(
                        1,
                        Arbitraries.of(
                                "Attribute." + "1".repeat(1000) + ".Name=x",
                                "x".repeat(60_000) + "=1",
                                "a=" + "%41".repeat(30_000),
                                "Attribute.999999999.Name=VisibilityTimeout")));
        Arbitrary<String> separator = Arbitraries.of("&", "&", "&", "&&", ";", "", "\n", "&=&");
        Arbitrary<String> form = Combinators.combine(segment.list().ofMinSize(1).ofMaxSize(8), separator)
                .as((segments, sep) -> String.join(sep, segments));
        List<String> many = new ArrayList<>();
        for (int n : new int[] {2_000, 20_000, 60_000}) {
            StringBuilder sb = new StringBuilder("Action=ListQueues");
            for (int i = 0; i < n; i++) {
                sb.append("&p").append(i).append('=').append(i);
            }
            many.add(sb.toString());
        }
        Arbitrary<String> manyParams = Arbitraries.of(many);
        List<String> manyAttribute = new ArrayList<>();
        for (int n : new int[] {1_000, 10_000}) {
            StringBuilder sb = new StringBuilder("Action=SendMessage&QueueUrl=fz-std&MessageBody=x");
            for (int i = 1; i <= n; i++) {
                sb.append("&MessageAttribute.")
                        .append(i)
                        .append(".Name=a")
                        .append(i)
                        .append("&MessageAttribute.")
                        .append(i)
                        .append(".Value.DataType=String")
                        .append("&MessageAttribute.")
                        .append(i)
                        .append(".Value.StringValue=v");
            }
            manyAttribute.add(sb.toString());
        }
        Arbitrary<String> manyAttributes = Arbitraries.of(manyAttribute);
        return Combinators.combine(
                        Choice.weighted(Tuple.of(97, form), Tuple.of(2, manyParams), Tuple.of(1, manyAttributes)),
                        Arbitraries.of("POST", "POST", "POST", "GET"))
                .as((f, method) -> {
                    HttpRequestBuilder b = http();
                    b.method = method;
                    if (method.equals("GET")) {
                        b.target = "/?" + f.replace("\n", "%0A").replace(" ", "%20");
                        b.framing = Framing.NONE;
                    } else {
                        b.header("Content-Type", FORM_TYPE);
                        b.body(Tree.latin1OrUtf8(f));
                    }
                    return b.build("malformed-form", Expected.QUERY, false, false);
                });
    }

    private Arbitrary<FuzzRequest> invalidUtf8() {
        Arbitrary<String> action = Arbitraries.of(
                "SendMessage", "CreateQueue", "TagQueue", "SetQueueAttributes", "GetQueueUrl", "SendMessageBatch");
        Arbitrary<FuzzRequest> json = Combinators.combine(
                        action, Arbitraries.of(INVALID_UTF8), Arbitraries.of(0, 1, 2, 3))
                .as((a, bad, where) -> {
                    byte[] body = switch (where) {
                        case 0 -> concat("{\"QueueUrl\":\"fz-std\",\"MessageBody\":\"a", bad, "b\"}");
                        case 1 -> concat("{\"QueueName\":\"fz-", bad, "\",\"Attributes\":{}}");
                        case 2 -> concat("{\"QueueUrl\":\"fz-std\",\"Tags\":{\"k", bad, "\":\"v\"}}");
                        default -> concat("{\"", bad, "\":1}");
                    };
                    HttpRequestBuilder b =
                            http().header("Content-Type", JSON_TYPE).header("X-Amz-Target", "AmazonSQS." + a);
                    return b.body(body).build("invalid-utf8", Expected.JSON, false, false);
                });
        Arbitrary<FuzzRequest> query = Combinators.combine(
                        action, Arbitraries.of(INVALID_UTF8), Arbitraries.of(0, 1, 2, 3))
                .as((a, bad, where) -> {
                    HttpRequestBuilder b = http();
                    byte[] form = switch (where) {
                        case 0 -> concat("Action=" + a + "&QueueUrl=fz-std&MessageBody=a", bad, "b");
                        case 1 -> concat("Action=" + a + "&QueueName=fz-", bad, "");
                        case 2 -> concat("Action=" + a + "&QueueUrl=fz-std&Tag.1.Key=", bad, "&Tag.1.Value=v");
                        default -> concat("Action=" + a + "&", bad, "=1");
                    };
                    if (where == 3) {
                        b.method = "GET";
                        b.target = "/?" + new String(form, StandardCharsets.ISO_8859_1);
                        b.framing = Framing.NONE;
                    } else {
                        b.header("Content-Type", FORM_TYPE).body(form);
                    }
                    return b.build("invalid-utf8", Expected.QUERY, false, false);
                });
        Arbitrary<FuzzRequest> header = Arbitraries.of(INVALID_UTF8).map(bad -> {
            HttpRequestBuilder b = http().header("Content-Type", JSON_TYPE)
                    .header("X-Amz-Target", "AmazonSQS.List" + new String(bad, StandardCharsets.ISO_8859_1) + "Queues");
            return b.body("{}".getBytes(StandardCharsets.UTF_8)).build("invalid-utf8", Expected.EITHER, false, true);
        });
        return Choice.weighted(Tuple.of(4, json), Tuple.of(4, query), Tuple.of(1, header));
    }

    private static byte[] concat(String before, byte[] middle, String after) {
        byte[] a = before.getBytes(StandardCharsets.UTF_8);
        byte[] c = after.getBytes(StandardCharsets.UTF_8);
        byte[] out = new byte[a.length + middle.length + c.length];
        System.arraycopy(a, 0, out, 0, a.length);
        System.arraycopy(middle, 0, out, a.length, middle.length);
        System.arraycopy(c, 0, out, a.length + middle.length, c.length);
        return out;
    }

    /** Nesting beyond any parser's depth, arrays of a hundred thousand items, strings of megabytes. */
    private Arbitrary<FuzzRequest> deepAndHugeJson() {
        Arbitrary<Integer> depth = Arbitraries.of(10, 100, 500, 999, 1000, 1001, 5000, 50_000);
        Arbitrary<String> action = Arbitraries.of(
                "SendMessage",
                "SendMessageBatch",
                "ReceiveMessage",
                "CreateQueue",
                "SetQueueAttributes",
                "TagQueue",
                "DeleteMessageBatch");
        Arbitrary<Body> deep = Combinators.combine(
                        depth, Arbitraries.of("[", "{\"a\":", "{\"Entries\":[", "[{\"x\":"), Arbitraries.of(0, 1, 2))
                .as((d, open, where) -> {
                    String close = switch (open) {
                        case "[" -> "]";
                        case "{\"a\":" -> "}";
                        case "{\"Entries\":[" -> "]}";
                        default -> "}]";
                    };
                    String head = switch (where) {
                        case 0 -> "";
                        case 1 -> "{\"QueueUrl\":\"fz-std\",\"MessageBody\":\"x\",\"MessageAttributes\":";
                        default -> "{\"QueueUrl\":\"fz-std\",\"Entries\":";
                    };
                    String tail = where == 0 ? "" : "}";
                    return new Body(List.of(seg(head, 1), seg(open, d), seg("1", 1), seg(close, d), seg(tail, 1)));
                });
        Arbitrary<Body> huge = Combinators.combine(
                        Arbitraries.of(1_000, 20_000, 100_000), Arbitraries.of(0, 1, 2, 3, 4, 5))
                .as((n, kind) -> switch (kind) {
                    case 0 ->
                        new Body(List.of(
                                seg("{\"QueueUrl\":\"fz-std\",\"Entries\":[", 1), seg("{},", n), seg("{}]}", 1)));
                    case 1 ->
                        new Body(List.of(
                                seg("{\"QueueUrl\":\"fz-std\",\"AttributeNames\":[", 1),
                                seg("\"All\",", n),
                                seg("\"All\"]}", 1)));
                    case 2 ->
                        new Body(List.of(
                                seg("{\"QueueUrl\":\"fz-std\",\"MessageBody\":\"", 1),
                                seg("\\u00e9", n),
                                seg("\"}", 1)));
                    case 3 ->
                        new Body(List.of(
                                seg("{\"QueueUrl\":\"fz-std\",\"MessageBody\":\"x\",\"DelaySeconds\":", 1),
                                seg("9", Math.min(n, 100_000)),
                                seg("}", 1)));
                    case 4 -> new Body(List.of(seg("{", 1), seg("\"k\":1,", n), seg("\"QueueUrl\":\"fz-std\"}", 1)));
                    default -> new Body(List.of(seg(" ", n), seg("{}", 1), seg(" ", n)));
                });
        int max = target.maxRequestBytes();
        Arbitrary<Body> boundary = Arbitraries.of(-1, 0, 1).map(d -> {
            String head = "{\"QueueUrl\":\"fz-std\",\"MessageBody\":\"";
            String tail = "\"}";
            int fill = max + d - head.length() - tail.length();
            return new Body(List.of(seg(head, 1), seg("x", fill), seg(tail, 1)));
        });
        return Combinators.combine(
                        action, Choice.weighted(Tuple.of(120, deep), Tuple.of(79, huge), Tuple.of(1, boundary)))
                .as((a, body) -> {
                    HttpRequestBuilder b =
                            http().header("Content-Type", JSON_TYPE).header("X-Amz-Target", "AmazonSQS." + a);
                    return b.body(body).build("deep-huge-json", Expected.JSON, false, body.length() > max);
                });
    }

    private static Body.Segment seg(String s, int repeat) {
        return new Body.Segment(s.getBytes(StandardCharsets.UTF_8), repeat);
    }

    /** Many headers, huge headers, headers that are no headers. */
    private Arbitrary<FuzzRequest> headerAbuse() {
        int limit = target.maxHeaderBytes();
        Arbitrary<FuzzRequest> many = Arbitraries.of(50, 300, 700, 3000).map(n -> {
            HttpRequestBuilder b = listQueuesJson();
            for (int i = 0; i < n; i++) {
                b.header("X-F-" + i, "v");
            }
            boolean fits = n * 12 < limit - 200;
            // A head over the limit is refused in the protocol of the headers the server read before
            // it gave up, which depends on where it stopped: either.
            return b.build("many-headers", fits ? Expected.JSON : Expected.EITHER, false, !fits);
        });
        Arbitrary<FuzzRequest> big = Combinators.combine(
                        Arbitraries.of(1_000, 8_000, limit - 1_000, limit + 1_000, 64 * 1024, 200 * 1024),
                        Arbitraries.of(
                                "X-Big",
                                "X-Amz-Target",
                                "Content-Type",
                                "Authorization",
                                "User-Agent",
                                "Host",
                                "Cookie"))
                .as((size, name) -> {
                    HttpRequestBuilder b = listQueuesJson();
                    String value = switch (name) {
                        case "X-Amz-Target" -> "AmazonSQS.ListQueues" + "x".repeat(size);
                        case "Authorization" ->
                            "AWS4-HMAC-SHA256 Credential=" + "A".repeat(size)
                                    + "/20261201/us-east-1/sqs/aws4_request, SignedHeaders=host, Signature=00";
                        default -> "x".repeat(size);
                    };
                    if (name.equals("Host")) {
                        b.host = false;
                    }
                    b.header(name, value);
                    boolean fits = size <= limit - 1_000;
                    return b.build("huge-header", fits ? Expected.JSON : Expected.EITHER, false, !fits);
                });
        Arbitrary<FuzzRequest> garbled = Arbitraries.of(
                        "X-Bad Header: v",
                        "X-Bad:\u0000v",
                        "garbage",
                        " folded: continuation",
                        ": no-name",
                        "X-Bad\t: v",
                        "X-\u00e9\u00e9: v",
                        "X-Bad: a\rb",
                        "X-Amz-Target: AmazonSQS.Bogus",
                        "Content-Type: text/plain",
                        "Host: other.example",
                        "Content-Type:",
                        "X-Amz-Target:",
                        "X-Amz-Target:   ",
                        "X-Amz-Target: \t",
                        "Transfer-Encoding: identity",
                        "Connection: close",
                        "Connection: keep-alive, Upgrade",
                        "Upgrade: h2c",
                        "HTTP2-Settings: AAMAAABkAAQAAP__",
                        "Expect: 100-continue",
                        "Expect: something-else",
                        "Content-Encoding: gzip",
                        "Content-Encoding: br",
                        "X-Forwarded-For: ::1",
                        "Authorization: AWS4-HMAC-SHA256 Credential=AKID/20261201/us-east-1/sqs/aws4_request,"
                                + " SignedHeaders=host;x-amz-date, Signature=abc",
                        "Authorization: Credential=",
                        "Authorization: Credential=/",
                        "Authorization: \u00e9",
                        "X-Amz-Security-Token: " + "t".repeat(2000),
                        "X-Amz-Date: yesterday")
                .map(line -> {
                    HttpRequestBuilder b = listQueuesJson();
                    b.rawHeader(line);
                    return b.build("garbled-header", Expected.EITHER, false, true);
                });
        Arbitrary<FuzzRequest> lfOnly = Arbitraries.just(0).map(x -> {
            HttpRequestBuilder b = listQueuesJson();
            b.eol = "\n";
            return b.build("garbled-header", Expected.EITHER, false, true);
        });
        // WebSocket handshakes are no SQS requests: refused, but refused with an answer.
        Arbitrary<FuzzRequest> webSocket = Combinators.combine(
                        Arbitraries.of("GET", "POST"),
                        Arbitraries.of("Upgrade", "keep-alive", "keep-alive, Upgrade"),
                        Arbitraries.of("13", "8", ""),
                        Arbitraries.of(true, false))
                .as((method, connection, version, key) -> {
                    HttpRequestBuilder b = method.equals("GET") ? http() : listQueuesJson();
                    b.method = method;
                    if (method.equals("GET")) {
                        b.framing = Framing.NONE;
                    }
                    b.header("Connection", connection).header("Upgrade", "websocket");
                    if (!version.isEmpty()) {
                        b.header("Sec-WebSocket-Version", version);
                    }
                    if (key) {
                        b.header("Sec-WebSocket-Key", "dGhlIHNhbXBsZSBub25jZQ==");
                    }
                    return b.build("websocket", Expected.NONE, false, true);
                });
        return Choice.weighted(
                Tuple.of(3, many), Tuple.of(4, big), Tuple.of(8, garbled), Tuple.of(1, lfOnly), Tuple.of(1, webSocket));
    }

    private HttpRequestBuilder listQueuesJson() {
        return http().header("Content-Type", JSON_TYPE)
                .header("X-Amz-Target", "AmazonSQS.ListQueues")
                .body("{\"QueueNamePrefix\":\"fz\"}".getBytes(StandardCharsets.UTF_8));
    }

    /** Request lines, lengths and chunks that do not add up. */
    private Arbitrary<FuzzRequest> framingAbuse() {
        int lineLimit = target.maxInitialLineBytes();
        Arbitrary<FuzzRequest> requestLine = Combinators.combine(
                        Arbitraries.of(
                                "GET",
                                "POST",
                                "PUT",
                                "DELETE",
                                "PATCH",
                                "OPTIONS",
                                "HEAD",
                                "TRACE",
                                "FOO",
                                "get",
                                "P\u00d6ST",
                                "POST\u0000"),
                        Arbitraries.of(
                                "/",
                                "*",
                                "http://127.0.0.1/",
                                "/%",
                                "//",
                                "/..",
                                "/\u0000",
                                "?Action=ListQueues",
                                "/?Action=ListQueues",
                                "/?Action=ListQueues&QueueNamePrefix=%",
                                "/" + "a".repeat(lineLimit + 100),
                                "/?" + "a".repeat(lineLimit / 2),
                                "/\u00e9",
                                "/a b",
                                "/health/../x",
                                "/health",
                                "/" + target.account() + "/fz-std?Action=GetQueueAttributes&AttributeName.1=All"),
                        Arbitraries.of(
                                "HTTP/1.1",
                                "HTTP/1.1",
                                "HTTP/1.0",
                                "HTTP/1.2",
                                "HTTP/2.0",
                                "HTTP/0.9",
                                "HTTP/1",
                                "http/1.1",
                                "HTTP/1.1 extra",
                                "HTTP/11"))
                .as((method, path, version) -> {
                    HttpRequestBuilder b = http();
                    b.method = method;
                    b.target = path;
                    b.version = version;
                    b.framing = Framing.NONE;
                    boolean health = path.startsWith("/health") && method.equals("GET");
                    return b.build("request-line", health ? Expected.NONE : Expected.EITHER, false, true);
                });
        Arbitrary<FuzzRequest> badLength = Arbitraries.of(
                        "abc", "-1", "1.5", "0x10", "", "1 2", "99999999999999999999", "5, 6", "+5", "\u0665", "5,5")
                .map(v -> {
                    HttpRequestBuilder b = listQueuesJson();
                    b.framing = Framing.NONE;
                    b.contentLengthOverride = v;
                    return b.build("content-length", Expected.EITHER, false, true);
                });
        Arbitrary<FuzzRequest> shortLength = Arbitraries.of(0, 1, 5).map(n -> {
            HttpRequestBuilder b = listQueuesJson();
            b.contentLengthOverride = Integer.toString(n);
            return b.build("content-length", Expected.JSON, false, true);
        });
        Arbitrary<FuzzRequest> chunked = Combinators.combine(
                        Arbitraries.of(new int[] {1}, new int[] {3, 1000}, new int[] {8192}),
                        Arbitraries.of("", ";ext=1", ";a=\"b\""),
                        Arbitraries.of("", "X-Trailer: 1\r\n"),
                        Arbitraries.of(false, true))
                .as((sizes, ext, trailer, query) -> {
                    HttpRequestBuilder b = query
                            ? http().header("Content-Type", FORM_TYPE)
                                    .body("Action=ListQueues&QueueNamePrefix=fz".getBytes(StandardCharsets.UTF_8))
                            : listQueuesJson();
                    b.framing = Framing.CHUNKED;
                    b.chunkSizes = sizes;
                    b.chunkExtension = ext;
                    b.trailer = trailer;
                    return b.build("chunked", query ? Expected.QUERY : Expected.JSON, false, false);
                });
        Arbitrary<FuzzRequest> badChunks = Arbitraries.of(
                        "zz\r\nabc\r\n0\r\n\r\n",
                        "-1\r\nabc\r\n0\r\n\r\n",
                        "\r\nabc\r\n0\r\n\r\n",
                        "FFFFFFFFFFFFFFFFFFFF\r\nabc\r\n",
                        "3\r\nabcdef\r\n0\r\n\r\n",
                        "3 3\r\nabc\r\n0\r\n\r\n",
                        "3\r\nabc0\r\n\r\n")
                .map(raw -> {
                    HttpRequestBuilder b =
                            http().header("Content-Type", JSON_TYPE).header("X-Amz-Target", "AmazonSQS.ListQueues");
                    b.framing = Framing.NONE;
                    b.rawHeader("Transfer-Encoding: chunked");
                    b.body(raw.getBytes(StandardCharsets.ISO_8859_1));
                    return b.build("bad-chunks", Expected.EITHER, true, true);
                });
        // Every body here is complete, however the server reads its framing: a request the server
        // must wait on for more is a stalled one, which the slow-request test covers.
        Arbitrary<FuzzRequest> chunkedLast = Arbitraries.of(
                        "Chunked", "CHUNKED", "gzip, chunked", "identity, chunked", "chunked, chunked", "chunked;q=1")
                .map(te -> {
                    HttpRequestBuilder b = listQueuesJson();
                    b.framing = Framing.NONE;
                    b.rawHeader("Transfer-Encoding: " + te);
                    b.body(b.body.chunked(new int[] {7}, "", ""));
                    return b.build("transfer-encoding", Expected.EITHER, true, true);
                });
        Arbitrary<FuzzRequest> notChunkedLast = Arbitraries.of("gzip", "chunked, gzip", "xchunked", "identity", "")
                .map(te -> {
                    HttpRequestBuilder b = listQueuesJson();
                    b.rawHeader("Transfer-Encoding: " + te);
                    b.body(Body.of("{\"QueueNamePrefix\":\"fz\"}\r\n\r\n"));
                    return b.build("transfer-encoding", Expected.EITHER, true, true);
                });
        Arbitrary<FuzzRequest> both = Arbitraries.just(0).map(x -> {
            HttpRequestBuilder b = listQueuesJson();
            b.framing = Framing.CHUNKED;
            b.rawHeader("Content-Length: 3");
            return b.build("transfer-encoding", Expected.EITHER, true, true);
        });
        int max = target.maxRequestBytes();
        Body big = new Body(List.of(seg("Action=SendMessage&QueueUrl=fz-std&MessageBody=", 1), seg("x", max)));
        Body bigChunked = big.chunked(new int[] {65536}, "", "");
        Arbitrary<FuzzRequest> oversized = Arbitraries.of(0, 1, 2).map(kind -> {
            HttpRequestBuilder b = http().header("Content-Type", FORM_TYPE);
            switch (kind) {
                case 0 -> b.body(big);
                case 1 -> {
                    b.body(bigChunked);
                    b.framing = Framing.NONE;
                    b.rawHeader("Transfer-Encoding: chunked");
                }
                default -> {
                    b.body("Action=ListQueues".getBytes(StandardCharsets.UTF_8));
                    b.contentLengthOverride = "1000000000000";
                }
            }
            return b.build("oversized-body", Expected.QUERY, false, true);
        });
        Arbitrary<FuzzRequest> continueFirst = Arbitraries.of(false, true).map(query -> {
            HttpRequestBuilder b = query
                    ? http().header("Content-Type", FORM_TYPE)
                            .body("Action=ListQueues".getBytes(StandardCharsets.UTF_8))
                    : listQueuesJson();
            b.header("Expect", "100-continue");
            return b.build("expect-continue", query ? Expected.QUERY : Expected.JSON, false, false);
        });
        Arbitrary<FuzzRequest> pipelined = Arbitraries.of(1, 2, 10).map(n -> {
            HttpRequestBuilder b = listQueuesJson();
            byte[] one = b.build("x", Expected.JSON, false, false).head();
            byte[] body = "{\"QueueNamePrefix\":\"fz\"}".getBytes(StandardCharsets.UTF_8);
            byte[] more = new byte[(one.length + body.length) * n];
            for (int i = 0; i < n; i++) {
                System.arraycopy(one, 0, more, i * (one.length + body.length), one.length);
                System.arraycopy(body, 0, more, i * (one.length + body.length) + one.length, body.length);
            }
            b.body(Body.of(body).then(more));
            b.contentLengthOverride = Integer.toString(body.length);
            return b.build("pipelined", Expected.JSON, false, true);
        });
        return Choice.weighted(
                Tuple.of(10, requestLine),
                Tuple.of(4, badLength),
                Tuple.of(2, shortLength),
                Tuple.of(4, chunked),
                Tuple.of(3, badChunks),
                Tuple.of(1, chunkedLast),
                Tuple.of(1, notChunkedLast),
                Tuple.of(1, both),
                Tuple.of(1, oversized),
                Tuple.of(2, continueFirst),
                Tuple.of(2, pipelined));
    }
}
