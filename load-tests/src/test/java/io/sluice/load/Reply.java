package io.sluice.load;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.io.StringReader;
import java.io.UncheckedIOException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import javax.xml.stream.XMLInputFactory;
import javax.xml.stream.XMLStreamConstants;
import javax.xml.stream.XMLStreamException;
import javax.xml.stream.XMLStreamReader;

/**
 * What the simulations read from a 200 reply, the same for both protocols: a JSON reply is read with Jackson,
 * a Query (XML) reply with the JDK's StAX parser, by element name (any namespace).
 */
interface Reply {

    /** A received message. */
    record Message(String receiptHandle, String body) {}

    /** The first member or element called {@code name} (QueueUrl, MessageId, ...), or null. */
    String text(String name);

    /** ReceiveMessage: the messages, in the order of the reply. */
    List<Message> messages();

    /** SendMessageBatch, DeleteMessageBatch: entries that succeeded. */
    int successful();

    /** SendMessageBatch, DeleteMessageBatch: entries that failed. */
    int failed();

    /** GetQueueAttributes: the attributes. */
    Map<String, String> attributes();

    static Reply json(String body) {
        JsonNode root;
        try {
            root = SqsProtocol.MAPPER.readTree(body);
        } catch (IOException e) {
            throw new UncheckedIOException("not a JSON reply: " + abbreviated(body), e);
        }
        return new JsonReply(root);
    }

    static Reply xml(String body) {
        return new XmlReply(Element.parse(body));
    }

    private static String abbreviated(String s) {
        return s.length() <= 200 ? s : s.substring(0, 200) + "...";
    }

    /** A JSON reply: the members of the top-level object. */
    record JsonReply(JsonNode root) implements Reply {
        @Override
        public String text(String name) {
            JsonNode n = root.get(name);
            return n == null || n.isNull() ? null : n.asText();
        }

        @Override
        public List<Message> messages() {
            List<Message> out = new ArrayList<>();
            for (JsonNode m : root.path("Messages")) {
                out.add(new Message(
                        m.path("ReceiptHandle").asText(), m.path("Body").asText()));
            }
            return out;
        }

        @Override
        public int successful() {
            return root.path("Successful").size();
        }

        @Override
        public int failed() {
            return root.path("Failed").size();
        }

        @Override
        public Map<String, String> attributes() {
            Map<String, String> out = new LinkedHashMap<>();
            root.path("Attributes")
                    .fields()
                    .forEachRemaining(e -> out.put(e.getKey(), e.getValue().asText()));
            return out;
        }
    }

    /** A Query reply: SQS's XML, looked at by local element names. */
    record XmlReply(Element root) implements Reply {
        @Override
        public String text(String name) {
            Element e = root.first(name);
            return e == null ? null : e.text();
        }

        @Override
        public List<Message> messages() {
            List<Message> out = new ArrayList<>();
            root.each("Message", m -> {
                // <Message> also names an error's text; a received message has a receipt handle.
                Element handle = m.child("ReceiptHandle");
                if (handle != null) {
                    Element body = m.child("Body");
                    out.add(new Message(handle.text(), body == null ? "" : body.text()));
                }
            });
            return out;
        }

        @Override
        public int successful() {
            int[] n = {0};
            root.each(null, e -> {
                if (e.name().endsWith("BatchResultEntry")) {
                    n[0]++;
                }
            });
            return n[0];
        }

        @Override
        public int failed() {
            int[] n = {0};
            root.each("BatchResultErrorEntry", e -> n[0]++);
            return n[0];
        }

        @Override
        public Map<String, String> attributes() {
            Map<String, String> out = new LinkedHashMap<>();
            root.each("Attribute", a -> {
                Element name = a.child("Name");
                Element value = a.child("Value");
                if (name != null && value != null) {
                    out.put(name.text(), value.text());
                }
            });
            return out;
        }
    }

    /** A small element tree: local name, text, children. */
    final class Element {
        private static final XMLInputFactory FACTORY = newFactory();

        private final String name;
        private final StringBuilder text = new StringBuilder();
        private final List<Element> children = new ArrayList<>(4);

        private Element(String name) {
            this.name = name;
        }

        String name() {
            return name;
        }

        String text() {
            return text.toString();
        }

        Element child(String childName) {
            for (Element c : children) {
                if (c.name.equals(childName)) {
                    return c;
                }
            }
            return null;
        }

        /** The first element called {@code wanted} in document order (this one included), or null. */
        Element first(String wanted) {
            if (name.equals(wanted)) {
                return this;
            }
            for (Element c : children) {
                Element found = c.first(wanted);
                if (found != null) {
                    return found;
                }
            }
            return null;
        }

        /** Every element called {@code wanted} (every element when null), in document order. */
        void each(String wanted, Consumer<Element> action) {
            if (wanted == null || name.equals(wanted)) {
                action.accept(this);
            }
            for (Element c : children) {
                c.each(wanted, action);
            }
        }

        private static XMLInputFactory newFactory() {
            XMLInputFactory f = XMLInputFactory.newFactory();
            f.setProperty(XMLInputFactory.IS_NAMESPACE_AWARE, true);
            f.setProperty(XMLInputFactory.SUPPORT_DTD, false);
            f.setProperty(XMLInputFactory.IS_SUPPORTING_EXTERNAL_ENTITIES, false);
            f.setProperty(XMLInputFactory.IS_COALESCING, true);
            return f;
        }

        static Element parse(String xml) {
            Element root = null;
            Deque<Element> open = new ArrayDeque<>();
            try {
                XMLStreamReader r = FACTORY.createXMLStreamReader(new StringReader(xml));
                try {
                    while (r.hasNext()) {
                        switch (r.next()) {
                            case XMLStreamConstants.START_ELEMENT -> {
                                Element e = new Element(r.getLocalName());
                                if (open.isEmpty()) {
                                    root = e;
                                } else {
                                    open.peek().children.add(e);
                                }
                                open.push(e);
                            }
                            case XMLStreamConstants.CHARACTERS, XMLStreamConstants.CDATA -> {
                                if (!open.isEmpty()) {
                                    open.peek().text.append(r.getText());
                                }
                            }
                            case XMLStreamConstants.END_ELEMENT -> open.pop();
                            default -> {}
                        }
                    }
                } finally {
                    r.close();
                }
            } catch (XMLStreamException e) {
                throw new IllegalArgumentException("not an XML reply: " + abbreviated(xml), e);
            }
            if (root == null) {
                throw new IllegalArgumentException("an XML reply without an element: " + abbreviated(xml));
            }
            return root;
        }
    }
}
