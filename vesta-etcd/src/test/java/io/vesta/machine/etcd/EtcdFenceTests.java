package io.vesta.machine.etcd;

import io.etcd.jetcd.Client;
import io.vesta.machine.LeaseEntry;
import io.vesta.machine.MachineIdRange;
import io.vesta.machine.StoreMark;
import io.vesta.test.ManualTimeSource;
import io.vesta.test.etcd.EtcdCluster;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.NavigableMap;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.UnaryOperator;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The fence of etcd leases, on real etcd: a renewal whose reply was lost although it landed keeps the lease (the keys
 * still carry the claim's token, so their revision becomes the fence); a key taken over is lost, with the reason; a
 * restore from a snapshot (a new cluster ID) ends every holder's lease and makes the next claim wait a lease plus the
 * clock skew.
 */
class EtcdFenceTests {

    private static final java.util.logging.Logger QUIET = java.util.logging.Logger.getLogger("io.vesta.machine");

    static {
        QUIET.setLevel(java.util.logging.Level.SEVERE);
    }

    private static final Instant T0 = Instant.parse("2026-06-01T12:00:00Z");
    private static final Duration LEASE = Duration.ofSeconds(30);
    /** No renewal of its own while a test runs: the test renews by hand. */
    private static final Duration INERT = Duration.ofSeconds(10);

    @TempDir
    Path dir;

    private final List<AutoCloseable> toClose = new ArrayList<>();

    @AfterEach
    void close() throws Exception {
        for (int i = toClose.size() - 1; i >= 0; i--) {
            toClose.get(i).close();
        }
    }

    private <T extends AutoCloseable> T closing(T closeable) {
        toClose.add(closeable);
        return closeable;
    }

    private EtcdMachineIdProvider provider(Client client, String prefix, String owner, ManualTimeSource clock,
            UnaryOperator<EtcdLeaseStore> wrap) {
        return closing(EtcdMachineIdProvider.builder(client).prefix(prefix).owner(owner).lease(LEASE).heartbeat(INERT)
                .timeSource(clock).build(wrap));
    }

    /** A store whose next write lands and then reports a timeout, as a reply lost on the way back does. */
    private static final class LosingStore extends EtcdLeaseStore {
        final AtomicBoolean loseNext = new AtomicBoolean();

        LosingStore(EtcdLeaseStore store) {
            super(store);
        }

        @Override
        Written write(List<LeaseEntry> entries, NavigableMap<Long, Long> revisions, StoreMark mark, long markRevision)
                throws Exception {
            Written written = super.write(entries, revisions, mark, markRevision);
            if (loseNext.getAndSet(false)) {
                throw new TimeoutException("the reply to a write that landed (revision " + written.revision()
                        + ") was lost");
            }
            return written;
        }
    }

    @Test
    void aRenewalWhoseReplyWasLostKeepsTheLeaseAndATakeoverIsLostWithItsReason() throws Exception {
        Client client = closing(Client.builder().endpoints(EtcdTestSupport.endpoints()).build());
        String prefix = EtcdTestSupport.prefix("fence");
        EtcdTestSupport.markStore(client, prefix);
        ManualTimeSource clock = new ManualTimeSource(T0);
        List<LosingStore> stores = new ArrayList<>();
        EtcdMachineIdProvider holder = provider(client, prefix, "holder", clock, store -> {
            LosingStore losing = new LosingStore(store);
            stores.add(losing);
            return losing;
        });
        MachineIdRange range = new MachineIdRange(0, 0);
        assertThat(holder.acquire(range)).isZero();
        String claimed = EtcdTestSupport.get(client, prefix + "0000");

        long claimedUntil = holder.lease().heldUntil();
        stores.get(0).loseNext.set(true);
        clock.advance(Duration.ofSeconds(5));
        // The node cannot know the renewal landed: it keeps the lease end it had confirmed.
        assertThat(holder.heartbeat()).as("held after a renewal whose reply was lost").isTrue();
        assertThat(holder.lease().heldUntil()).as("the lease end after a lost reply").isEqualTo(claimedUntil);
        String landed = EtcdTestSupport.get(client, prefix + "0000");
        assertThat(landed).as("the key after the renewal that landed").isNotEqualTo(claimed);
        clock.advance(Duration.ofSeconds(5));
        assertThat(holder.heartbeat()).as("the next renewal, on the fence of the write that landed").isTrue();
        assertThat(holder.lease().lostReason()).isNull();
        assertThat(holder.lease().heldUntil()).isEqualTo(clock.currentTimeMillis() + LEASE.toMillis());
        String token = claimed.split("\\|")[3];
        assertThat(EtcdTestSupport.get(client, prefix + "0000")).as("the key keeps the claim's token").contains(token);

        // The holder goes silent past its lease; a node whose clock is past it takes the key over.
        ManualTimeSource later = new ManualTimeSource(T0.plus(LEASE.multipliedBy(3)));
        EtcdMachineIdProvider taker = provider(client, prefix, "taker", later, store -> store);
        assertThat(taker.acquire(range)).isZero();
        assertThat(holder.heartbeat()).as("a renewal of a key taken over").isFalse();
        assertThat(holder.lease().lostReason()).contains("taken over by owner 'taker'").contains("generation 2")
                .contains("this node held generation 1");
        assertThat(holder.lease().isHeldAt(clock.currentTimeMillis())).isFalse();
    }

    @Test
    void aRestoreFromASnapshotEndsEveryLeaseAndTheNextClaimWaitsALeaseAndTheSkew() throws Exception {
        EtcdCluster etcd = closing(EtcdCluster.start(dir.resolve("etcd"), 1));
        Client client = closing(Client.builder().endpoints(etcd.endpoints()).build());
        String prefix = EtcdTestSupport.prefix("restore");
        EtcdTestSupport.markStore(client, prefix);
        String before = EtcdTestSupport.clusterId(client);
        Path snapshot = dir.resolve("snapshot.db");
        etcd.snapshotSave(0, snapshot);

        ManualTimeSource clock = new ManualTimeSource(T0);
        EtcdMachineIdProvider holder = provider(client, prefix, "holder", clock, store -> store);
        MachineIdRange range = new MachineIdRange(0, 0);
        assertThat(holder.acquire(range)).isZero();
        long holderEnd = holder.lease().heldUntil();

        etcd.kill(0);
        etcd.restore(snapshot);
        String after = EtcdTestSupport.clusterId(client);
        assertThat(after).as("the cluster ID after the restore").isNotEqualTo(before);
        assertThat(EtcdTestSupport.get(client, prefix + "0000")).as("the holder's key, written after the snapshot")
                .isNull();

        ManualTimeSource takerClock = new ManualTimeSource(T0.plusSeconds(1));
        EtcdMachineIdProvider taker = provider(client, prefix, "taker", takerClock, store -> store);
        assertThat(taker.acquire(range)).as("the machine ID the restore forgot").isZero();
        assertThat(taker.notBefore()).as("the taker's IDs start after every lease that may have been lost")
                .hasValue(takerClock.currentTimeMillis() + LEASE.toMillis()
                        + EtcdMachineIdProvider.DEFAULT_MAX_CLOCK_SKEW.toMillis());
        assertThat(taker.notBefore().getAsLong()).isGreaterThan(holderEnd);
        assertThat(EtcdTestSupport.get(client, prefix + EtcdLeaseStore.STORE_KEY)).startsWith(after + "|");

        clock.advance(Duration.ofSeconds(5));
        assertThat(holder.heartbeat()).as("the holder's renewal on the restored cluster").isFalse();
        assertThat(holder.lease().lostReason()).contains("the etcd cluster changed: restored from a snapshot?")
                .contains(before).contains(after);
    }
}
