package io.sluice.server;

import io.sluice.queue.QueueAttributes;
import io.sluice.queue.QueueMeta;
import io.sluice.queue.RedrivePolicy;
import io.sluice.queue.SqsException;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Reads the JSON of RedrivePolicy and RedriveAllowPolicy as clients write it (numbers as
 * strings or not) and checks them against the queues they name. A queue keeps its redrive
 * policy parsed ({@link QueueMeta#redrivePolicy()}) and its allow policy as canonical JSON.
 */
final class RedriveAttributes {
    private final Broker broker;

    RedriveAttributes(Broker broker) {
        this.broker = broker;
    }

    /**
     * Validates the redrive attributes among {@code attributes}: takes the RedrivePolicy out of
     * them and returns it parsed, and canonicalises the RedriveAllowPolicy in place.
     *
     * @return the redrive policy given, or null when none was given or it was empty (none)
     */
    RedrivePolicy take(String queueName, boolean fifo, Map<String, String> attributes) {
        String policy = attributes.remove(QueueAttributes.REDRIVE_POLICY);
        RedrivePolicy parsed = null;
        if (policy != null && !policy.isEmpty()) {
            parsed = parsePolicy(policy);
            QueueMeta target = broker.requireQueueOfArn(parsed.deadLetterTargetArn(), RedrivePolicy::noTarget);
            RedrivePolicy.checkTarget(target, fifo, broker.urls.arn(queueName), allowPolicyOf(target));
        }
        String allow = attributes.get(QueueAttributes.REDRIVE_ALLOW_POLICY);
        if (allow != null && !allow.isEmpty()) {
            RedrivePolicy.AllowPolicy a = parseAllow(allow);
            JsonObject canonical = new JsonObject().put("redrivePermission", a.redrivePermission());
            if (!a.sourceQueueArns().isEmpty()) {
                canonical.put("sourceQueueArns", new JsonArray(new ArrayList<>(a.sourceQueueArns())));
            }
            attributes.put(QueueAttributes.REDRIVE_ALLOW_POLICY, canonical.encode());
        }
        return parsed;
    }

    static RedrivePolicy.AllowPolicy allowPolicyOf(QueueMeta target) {
        String allow = target == null ? null : target.attributes().get(QueueAttributes.REDRIVE_ALLOW_POLICY);
        return allow == null || allow.isEmpty() ? RedrivePolicy.AllowPolicy.ALLOW_ALL : parseAllow(allow);
    }

    private static RedrivePolicy parsePolicy(String json) {
        JsonObject o = parse(json, "RedrivePolicy");
        Object count = o.getValue("maxReceiveCount");
        int maxReceiveCount;
        try {
            maxReceiveCount = count instanceof Number n
                    ? n.intValue()
                    : Integer.parseInt(String.valueOf(count).trim());
        } catch (NumberFormatException e) {
            throw invalid("RedrivePolicy", "maxReceiveCount must be an integer.");
        }
        Object arn = o.getValue("deadLetterTargetArn");
        return new RedrivePolicy(arn instanceof String s ? s : null, maxReceiveCount);
    }

    private static RedrivePolicy.AllowPolicy parseAllow(String json) {
        JsonObject o = parse(json, "RedriveAllowPolicy");
        Object permission = o.getValue("redrivePermission");
        Object arns = o.getValue("sourceQueueArns");
        List<String> sources = new ArrayList<>();
        if (arns instanceof JsonArray a) {
            a.forEach(x -> sources.add(String.valueOf(x)));
        } else if (arns != null) {
            throw invalid("RedriveAllowPolicy", "sourceQueueArns must be a list.");
        }
        return new RedrivePolicy.AllowPolicy(permission instanceof String s ? s : "", sources);
    }

    private static JsonObject parse(String json, String attribute) {
        try {
            return new JsonObject(json);
        } catch (RuntimeException e) {
            throw invalid(attribute, "Invalid JSON.");
        }
    }

    private static SqsException invalid(String attribute, String reason) {
        return SqsException.invalidParameter("Value for parameter " + attribute + " is invalid. Reason: " + reason);
    }
}
