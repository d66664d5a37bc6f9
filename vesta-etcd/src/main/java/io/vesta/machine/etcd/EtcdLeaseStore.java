package io.vesta.machine.etcd;

import io.etcd.jetcd.ByteSequence;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.kv.GetResponse;
import io.etcd.jetcd.kv.TxnResponse;
import io.etcd.jetcd.op.Cmp;
import io.etcd.jetcd.op.CmpTarget;
import io.etcd.jetcd.op.Op;
import io.etcd.jetcd.options.GetOption;
import io.etcd.jetcd.options.PutOption;
import io.vesta.machine.MachineIdUnavailableException;
import io.vesta.machine.RecordLeaseBackend;
import io.vesta.machine.StoreMark;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.NavigableMap;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;

/**
 * The etcd side of the leases: under the prefix one key per machine ID ({@link Entry}) and the key {@code store} with
 * the store mark ({@link StoreMark}, the cluster ID the leases were last claimed on). Reads are one linearizable range
 * read; every write is one transaction compared on the mod revision of each key it writes. Every request is bounded by
 * the command timeout. A test subclasses it to lose a reply or step in between a read and a claim.
 */
class EtcdLeaseStore implements AutoCloseable {

    /** The key under the prefix that is no machine ID: the store mark. */
    static final String STORE_KEY = "store";

    private final Client client;
    private final boolean ownsClient;
    private final String prefix;
    private final String where;
    private final Duration commandTimeout;

    /** @param ownsClient whether {@link #close()} closes the client too */
    EtcdLeaseStore(Client client, boolean ownsClient, String prefix, String where, Duration commandTimeout) {
        this.client = client;
        this.ownsClient = ownsClient;
        this.prefix = prefix;
        this.where = where;
        this.commandTimeout = commandTimeout;
    }

    /** A store on the same client and prefix as {@code other}, which is then never used: for a test's subclass. */
    EtcdLeaseStore(EtcdLeaseStore other) {
        this(other.client, other.ownsClient, other.prefix, other.where, other.commandTimeout);
    }

    String prefix() {
        return prefix;
    }

    Duration commandTimeout() {
        return commandTimeout;
    }

    /** Where the keys live, for messages: {@code "prefix /vesta/machine-ids/ at [http://127.0.0.1:2379]"}. */
    String describe() {
        return "prefix " + prefix + " at " + where;
    }

    private ByteSequence key(String name) {
        return ByteSequence.from(prefix + name, StandardCharsets.UTF_8);
    }

    static String name(long machineId) {
        return String.format("%04d", machineId);
    }

    /**
     * The answer to {@code request}, sent once more while the command timeout lasts if its connection broke before an
     * answer (a member restarting, a connection reset): safe for a transaction too, since a repeat of one that landed
     * fails its compares, which the caller tells from a write of another.
     */
    private <T> T await(Supplier<CompletableFuture<T>> request, String what) throws Exception {
        long deadline = System.nanoTime() + commandTimeout.toNanos();
        while (true) {
            CompletableFuture<T> future = request.get();
            try {
                return future.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            } catch (TimeoutException e) {
                future.cancel(true);
                throw new TimeoutException("etcd did not answer " + what + " within " + commandTimeout.toMillis()
                        + " ms");
            } catch (ExecutionException e) {
                Throwable cause = e.getCause();
                if (!(cause instanceof StatusRuntimeException status && broken(status.getStatus().getCode()))
                        || deadline - System.nanoTime() <= 0) {
                    throw cause instanceof Exception exception ? exception : e;
                }
            }
        }
    }

    /** Whether a request failed because its connection did, so that etcd never answered it. */
    private static boolean broken(Status.Code code) {
        return code == Status.Code.UNAVAILABLE || code == Status.Code.UNKNOWN;
    }

    /** Every key under the prefix, the store mark apart, in one linearizable read; the header's cluster ID. */
    Snapshot read() throws Exception {
        GetResponse response = await(() -> client.getKVClient().get(key(""), GetOption.builder().isPrefix(true).build()),
                "a read of " + describe());
        NavigableMap<Long, Entry> entries = new TreeMap<>();
        String mark = null;
        long markRevision = 0;
        for (KeyValue kv : response.getKvs()) {
            String name = kv.getKey().toString(StandardCharsets.UTF_8).substring(prefix.length());
            String value = kv.getValue().toString(StandardCharsets.UTF_8);
            if (STORE_KEY.equals(name)) {
                mark = value;
                markRevision = kv.getModRevision();
            } else {
                Entry entry = Entry.parse(name, value, kv.getModRevision(), this);
                entries.put(entry.machineId(), entry);
            }
        }
        return new Snapshot(response.getHeader().getClusterId(), mark, markRevision,
                Collections.unmodifiableNavigableMap(entries));
    }

    /**
     * Takes a block, {@code written}, if its keys and the store mark are still as in {@code snapshot} ({@code read} by
     * offset, null where absent), writing {@code mark} too unless it is null (unchanged). The header tells the revision (the new fence), or a
     * failed compare.
     */
    Written claim(Snapshot snapshot, StoreMark mark, List<Entry> read, List<Entry> written) throws Exception {
        List<Cmp> compares = new ArrayList<>(written.size() + 1);
        List<Op> puts = new ArrayList<>(written.size() + 1);
        compares.add(unchanged(key(STORE_KEY), snapshot.markRevision()));
        if (mark != null) {
            puts.add(Op.put(key(STORE_KEY), bytes(mark.encode()), PutOption.DEFAULT));
        }
        for (int i = 0; i < written.size(); i++) {
            compares.add(unchanged(key(name(written.get(i).machineId())), read.get(i) == null ? 0
                    : read.get(i).modRevision()));
            puts.add(put(written.get(i)));
        }
        return commit(compares, puts, "a claim in " + describe());
    }

    /** Writes {@code entries} if each key's mod revision is still {@code revision}: the fenced renewal and release. */
    Written write(List<Entry> entries, long revision) throws Exception {
        List<Cmp> compares = new ArrayList<>(entries.size());
        List<Op> puts = new ArrayList<>(entries.size());
        for (Entry entry : entries) {
            compares.add(unchanged(key(name(entry.machineId())), revision));
            puts.add(put(entry));
        }
        return commit(compares, puts, "a write of " + entries.size() + " keys in " + describe());
    }

    /** Writes {@code entries} if each key's mod revision is still the one it was read with: an operator's end. */
    Written rewrite(List<Entry> read, List<Entry> written) throws Exception {
        List<Cmp> compares = new ArrayList<>(read.size());
        List<Op> puts = new ArrayList<>(read.size());
        for (int i = 0; i < read.size(); i++) {
            compares.add(unchanged(key(name(read.get(i).machineId())), read.get(i).modRevision()));
            puts.add(put(written.get(i)));
        }
        return commit(compares, puts, "an end of a lease in " + describe());
    }

    /** A compare that holds while the key was last written at {@code revision}, or is absent for 0. */
    private static Cmp unchanged(ByteSequence key, long revision) {
        return revision == 0 ? new Cmp(key, Cmp.Op.EQUAL, CmpTarget.createRevision(0))
                : new Cmp(key, Cmp.Op.EQUAL, CmpTarget.modRevision(revision));
    }

    private Op put(Entry entry) {
        return Op.put(key(name(entry.machineId())), bytes(entry.encode()), PutOption.DEFAULT);
    }

    private static ByteSequence bytes(String value) {
        return ByteSequence.from(value, StandardCharsets.UTF_8);
    }

    private Written commit(List<Cmp> compares, List<Op> puts, String what) throws Exception {
        TxnResponse response = await(() -> client.getKVClient().txn().If(compares.toArray(Cmp[]::new))
                .Then(puts.toArray(Op[]::new)).commit(), what);
        return new Written(response.isSucceeded(), response.getHeader().getRevision(),
                response.getHeader().getClusterId());
    }

    @Override
    public void close() {
        if (ownsClient) {
            client.close();
        }
    }

    /** One read of the prefix: the cluster ID answering, the store mark and its mod revision (0: none), the keys. */
    record Snapshot(long clusterId, String mark, long markRevision, NavigableMap<Long, Entry> entries) {
    }

    /** What a transaction did: whether its compares held, and the header's revision and cluster ID. */
    record Written(boolean succeeded, long revision, long clusterId) {
    }

    /** One machine ID's lease, {@code generation|leaseExpiry|highWater|token|owner}, and its key's mod revision. */
    record Entry(long machineId, long generation, long leaseExpiry, long highWater, String token, String owner,
            long modRevision) implements RecordLeaseBackend.Record {

        String encode() {
            return generation + "|" + leaseExpiry + "|" + highWater + "|" + token + "|" + owner;
        }

        static Entry parse(String name, String value, long modRevision, EtcdLeaseStore store) {
            String[] parts = value.split("\\|", 5);
            try {
                if (parts.length == 5 && name.length() == 4) {
                    return new Entry(Long.parseLong(name), Long.parseLong(parts[0]), Long.parseLong(parts[1]),
                            Long.parseLong(parts[2]), parts[3], parts[4], modRevision);
                }
            } catch (NumberFormatException e) {
                // reported below
            }
            throw new MachineIdUnavailableException("Key '" + store.prefix + name + "' of " + store.describe()
                    + " holds '" + value + "', which is no Vesta machine-ID lease (a key <prefix><4 digits> holding"
                    + " generation|leaseExpiry|highWater|token|owner); the prefix must hold nothing but Vesta's leases");
        }
    }
}
