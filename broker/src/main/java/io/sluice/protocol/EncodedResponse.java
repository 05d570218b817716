package io.sluice.protocol;

import io.vertx.core.buffer.Buffer;
import java.util.Map;

/** A reply ready for the HTTP layer: nothing left to decide but writing it out. */
public record EncodedResponse(int status, String contentType, Map<String, String> headers, Buffer body) {}
