package io.sluice.it.fuzz;

import io.sluice.it.fuzz.FuzzRequest.Expected;
import io.sluice.it.fuzz.WireConnection.Answer;
import io.vertx.core.json.DecodeException;
import io.vertx.core.json.JsonObject;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.util.regex.Pattern;
import javax.xml.parsers.DocumentBuilder;
import javax.xml.parsers.DocumentBuilderFactory;
import javax.xml.parsers.ParserConfigurationException;
import org.w3c.dom.Element;
import org.w3c.dom.Node;
import org.xml.sax.ErrorHandler;
import org.xml.sax.InputSource;
import org.xml.sax.SAXException;
import org.xml.sax.SAXParseException;

/** Whether an answer is what SQS would give: a status below 500 and the right shape in the right protocol. */
final class SqsAnswers {
    static final String NS = "http://queue.amazonaws.com/doc/2012-11-05/";
    private static final Pattern QUERY_ERROR_HEADER = Pattern.compile("[A-Za-z.]+;(Sender|Receiver)");

    private static final ThreadLocal<DocumentBuilder> XML = ThreadLocal.withInitial(() -> {
        try {
            DocumentBuilderFactory f = DocumentBuilderFactory.newInstance();
            f.setNamespaceAware(true);
            f.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
            DocumentBuilder b = f.newDocumentBuilder();
            b.setErrorHandler(new ErrorHandler() {
                @Override
                public void warning(SAXParseException e) {}

                @Override
                public void error(SAXParseException e) throws SAXException {
                    throw e;
                }

                @Override
                public void fatalError(SAXParseException e) throws SAXException {
                    throw e;
                }
            });
            return b;
        } catch (ParserConfigurationException e) {
            throw new IllegalStateException(e);
        }
    });

    private SqsAnswers() {}

    /** @return what is wrong with the answer, or null when it is a proper one */
    static String problem(FuzzRequest request, Answer answer) {
        int status = answer.status();
        if (status >= 500) {
            return "a " + status + " answer";
        }
        if (status < 200 || (status >= 300 && status < 400)) {
            return "an unexpected status " + status;
        }
        if (request.isHead() || request.expected() == Expected.NONE) {
            return null;
        }
        Expected protocol = request.expected();
        if (protocol == Expected.EITHER) {
            String type = answer.header("content-type");
            protocol = type != null && type.contains("json") ? Expected.JSON : Expected.QUERY;
        }
        return protocol == Expected.JSON ? jsonProblem(answer) : queryProblem(answer);
    }

    private static String jsonProblem(Answer answer) {
        String type = answer.header("content-type");
        if (type == null || !type.startsWith("application/x-amz-json-1.0")) {
            return "a JSON request answered with Content-Type " + type;
        }
        JsonObject body;
        try {
            body = new JsonObject(answer.bodyText());
        } catch (DecodeException | ClassCastException e) {
            return "a JSON answer that is no JSON object: " + e.getMessage();
        }
        if (answer.header("x-amzn-requestid") == null) {
            return "no x-amzn-RequestId header";
        }
        if (answer.status() < 400) {
            return null;
        }
        Object kind = body.getValue("__type");
        if (!(kind instanceof String s) || s.isEmpty()) {
            return "a JSON error without __type";
        }
        if (!(body.getValue("message") instanceof String)) {
            return "a JSON error without message";
        }
        String queryError = answer.header("x-amzn-query-error");
        if (queryError == null || !QUERY_ERROR_HEADER.matcher(queryError).matches()) {
            return "a JSON error with x-amzn-query-error " + queryError;
        }
        return null;
    }

    private static String queryProblem(Answer answer) {
        String type = answer.header("content-type");
        if (type == null || !type.startsWith("text/xml")) {
            return "a Query request answered with Content-Type " + type;
        }
        Element root;
        try {
            DocumentBuilder xml = XML.get();
            xml.reset();
            root = xml.parse(new InputSource(new ByteArrayInputStream(answer.body())))
                    .getDocumentElement();
        } catch (SAXException | IOException e) {
            return "an answer that is no well-formed XML: " + e.getMessage();
        }
        if (!NS.equals(root.getNamespaceURI())) {
            return "XML in namespace " + root.getNamespaceURI();
        }
        if (answer.status() < 400) {
            if (!root.getLocalName().endsWith("Response")) {
                return "a Query answer with root element " + root.getLocalName();
            }
            Element meta = child(root, "ResponseMetadata");
            return meta != null && notBlank(child(meta, "RequestId")) ? null : "a Query answer without a RequestId";
        }
        if (!root.getLocalName().equals("ErrorResponse")) {
            return "a Query error with root element " + root.getLocalName();
        }
        Element error = child(root, "Error");
        if (error == null) {
            return "an ErrorResponse without Error";
        }
        Element faultType = child(error, "Type");
        if (faultType == null
                || !(faultType.getTextContent().equals("Sender")
                        || faultType.getTextContent().equals("Receiver"))) {
            return "an Error without Type Sender or Receiver";
        }
        if (!notBlank(child(error, "Code"))) {
            return "an Error without Code";
        }
        if (child(error, "Message") == null) {
            return "an Error without Message";
        }
        if (!notBlank(child(root, "RequestId"))) {
            return "an ErrorResponse without RequestId";
        }
        return null;
    }

    private static Element child(Element parent, String localName) {
        for (Node n = parent.getFirstChild(); n != null; n = n.getNextSibling()) {
            if (n instanceof Element e && localName.equals(e.getLocalName()) && NS.equals(e.getNamespaceURI())) {
                return e;
            }
        }
        return null;
    }

    private static boolean notBlank(Element e) {
        return e != null && !e.getTextContent().isBlank();
    }

    /** The error code an answer names, for the statistics: the Query code or the JSON __type's shape. */
    static String codeOf(Answer answer) {
        String queryError = answer.header("x-amzn-query-error");
        if (queryError != null) {
            int semi = queryError.indexOf(';');
            return semi < 0 ? queryError : queryError.substring(0, semi);
        }
        String body = answer.bodyText();
        int at = body.indexOf("<Code>");
        int end = body.indexOf("</Code>");
        return at >= 0 && end > at ? body.substring(at + 6, end) : "";
    }
}
