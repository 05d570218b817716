package io.sluice.cluster;

import com.hazelcast.map.EntryProcessor;
import java.io.Serializable;
import java.util.Map;

/** Deletes the entries it runs on: how a batch of removes travels in one call per owner. */
final class DeleteEntry implements EntryProcessor<String, byte[], Boolean>, Serializable {
    private static final long serialVersionUID = 1L;

    @Override
    public Boolean process(Map.Entry<String, byte[]> entry) {
        entry.setValue(null);
        return Boolean.TRUE;
    }
}
