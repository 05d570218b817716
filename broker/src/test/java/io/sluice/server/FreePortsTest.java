package io.sluice.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

class FreePortsTest {
    @Test
    void portsAreBindableOutsideTheEphemeralRangeAndNeverHandedOutTwice() throws IOException {
        Set<Integer> seen = new HashSet<>();
        for (int i = 0; i < 50; i++) {
            int port = FreePorts.pick();
            assertFalse(FreePorts.ephemeral(port), port + " is in the ephemeral range");
            assertTrue(port >= FreePorts.LOWEST_PORT, "picked " + port);
            assertTrue(seen.add(port), port + " handed out twice");
        }
        int port = FreePorts.pick();
        try (ServerSocket s = new ServerSocket()) {
            s.bind(new InetSocketAddress("127.0.0.1", port));
            assertEquals(port, s.getLocalPort());
        }
    }
}
