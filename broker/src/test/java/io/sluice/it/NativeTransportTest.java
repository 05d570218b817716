package io.sluice.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import software.amazon.awssdk.services.sqs.model.Message;
import software.amazon.awssdk.services.sqs.model.MessageAttributeValue;

/** A node's sockets run on Linux's epoll unless told otherwise, and SQS works the same on both transports. */
class NativeTransportTest {

    @RegisterExtension
    static final BrokerExtension byDefault = new BrokerExtension();

    @RegisterExtension
    static final BrokerExtension onNio = new BrokerExtension("--native-transport", "false");

    @Test
    void aNodeOnLinuxServesOnEpollByDefault() {
        String arch = System.getProperty("os.arch");
        assumeTrue(
                System.getProperty("os.name").toLowerCase(Locale.ROOT).contains("linux")
                        && List.of("amd64", "x86_64", "aarch64").contains(arch),
                "the jar carries epoll for Linux on x86_64 and aarch64 only");
        assertNull(byDefault.node().nativeTransportMissing(), "the native library loads");
        assertEquals("epoll", byDefault.node().transport());
        sendReceiveDelete(byDefault);
    }

    @Test
    void turnedOffTheNodeServesOnJavaNio() {
        assertEquals("nio", onNio.node().transport());
        sendReceiveDelete(onNio);
    }

    /** A message with an attribute through the SDK (which checks both MD5s), received and deleted. */
    private static void sendReceiveDelete(BrokerExtension broker) {
        String url = broker.createQueue("transport");
        String body = "über " + "x".repeat(2000);
        broker.sqs()
                .sendMessage(r -> r.queueUrl(url)
                        .messageBody(body)
                        .messageAttributes(Map.of(
                                "kind",
                                MessageAttributeValue.builder()
                                        .dataType("String")
                                        .stringValue("probe")
                                        .build())));
        List<Message> got = broker.sqs()
                .receiveMessage(r -> r.queueUrl(url).waitTimeSeconds(5).messageAttributeNames("All"))
                .messages();
        assertEquals(1, got.size());
        assertEquals(body, got.get(0).body());
        assertEquals("probe", got.get(0).messageAttributes().get("kind").stringValue());
        broker.sqs().deleteMessage(r -> r.queueUrl(url).receiptHandle(got.get(0).receiptHandle()));
        assertEquals("0", broker.attribute(url, "ApproximateNumberOfMessagesNotVisible"));
    }
}
