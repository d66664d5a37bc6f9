package io.vesta.autoconfigure.server;

import io.vesta.EmbeddedIdService;
import io.vesta.GenMethod;
import io.vesta.autoconfigure.EmbeddedIdServiceFactory;
import io.vesta.autoconfigure.VestaProperties;
import io.vesta.machine.MachineIdProvider;
import io.vesta.machine.ReferenceCountedMachineIdProvider;
import io.vesta.time.MaxOfTimestampStore;
import io.vesta.time.TimeSource;
import io.vesta.time.TimestampStore;

/**
 * The two generators of a central server, under its one machine ID: genMethod 2 for the REST API, genMethod 1
 * for the Java client's batches.
 *
 * <p>Why one machine ID is enough for both: genMethod is a field of every ID (bits 60-61), so two generators
 * that share the machine ID, type and version but differ in genMethod make disjoint sets of IDs, even when both
 * issue sequence 0 of the same time unit. A second machine ID per server would halve how many servers the
 * 100-ID server range holds and double what operators must assign, for no gain in uniqueness. Each generator
 * keeps its own sequence state: each has the whole ceiling of the layout (2^20 IDs/s with max-peak), and REST
 * callers and Java clients never wait on each other's lock.
 *
 * <p>What the two share: the machine ID is acquired once ({@link ReferenceCountedMachineIdProvider}: a database or
 * ZooKeeper provider holds one lease, not two) and released when both are closed, and both stop issuing when that
 * lease is lost; a time-store file keeps the higher of the two high-water marks ({@link MaxOfTimestampStore}).
 */
public final class ServerIdServices implements AutoCloseable {

    private final EmbeddedIdService rest;
    private final EmbeddedIdService centralServer;

    ServerIdServices(EmbeddedIdService rest, EmbeddedIdService centralServer) {
        this.rest = rest;
        this.centralServer = centralServer;
    }

    /**
     * Both generators from {@code vesta.*}, with the machine ID from the server range whatever vesta.gen-method
     * says. No {@code EmbeddedIdServiceBuilderCustomizer} applies: the gen-methods and the one machine ID are what
     * keeps the two generators' IDs apart.
     */
    static ServerIdServices create(VestaProperties properties, MachineIdProvider provider, TimeSource timeSource,
            TimestampStore timestampStore) {
        ReferenceCountedMachineIdProvider machineId = new ReferenceCountedMachineIdProvider(provider, 2);
        MaxOfTimestampStore marks = timestampStore == null ? null : new MaxOfTimestampStore(timestampStore, 2);
        EmbeddedIdService rest = EmbeddedIdServiceFactory.create(properties, GenMethod.REST, machineId,
                timeSource, marks == null ? null : marks.view(0), builder -> { });
        try {
            EmbeddedIdService centralServer = EmbeddedIdServiceFactory.create(properties, GenMethod.CENTRAL_SERVER,
                    machineId, timeSource, marks == null ? null : marks.view(1), builder -> { });
            return new ServerIdServices(rest, centralServer);
        } catch (RuntimeException e) {
            rest.close();
            throw e;
        }
    }

    /** The generator of the REST API: genMethod 2. Also the application's {@code IdService}. */
    public EmbeddedIdService rest() {
        return rest;
    }

    /** The generator of the Java client's batches: genMethod 1. */
    public EmbeddedIdService centralServer() {
        return centralServer;
    }

    public long machineId() {
        return rest.machineId();
    }

    /** Closes both generators: exact high-water mark written, machine ID released. */
    @Override
    public void close() {
        try {
            centralServer.close();
        } finally {
            rest.close();
        }
    }

    @Override
    public String toString() {
        return "ServerIdServices[rest " + rest + ", central-server " + centralServer + "]";
    }
}
