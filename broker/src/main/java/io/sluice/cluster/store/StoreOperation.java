package io.sluice.cluster.store;

import com.hazelcast.nio.serialization.IdentifiedDataSerializable;
import com.hazelcast.spi.impl.operationservice.Operation;

/**
 * An operation of the {@link PartitionStore}: runs against that service, and travels in the
 * serialized form {@link StoreSerialization} names by {@code classId}.
 */
abstract class StoreOperation extends Operation implements IdentifiedDataSerializable {
    private final int classId;

    StoreOperation(int classId) {
        this.classId = classId;
    }

    @Override
    public final String getServiceName() {
        return PartitionStore.SERVICE_NAME;
    }

    @Override
    public final int getFactoryId() {
        return StoreSerialization.FACTORY_ID;
    }

    @Override
    public final int getClassId() {
        return classId;
    }
}
