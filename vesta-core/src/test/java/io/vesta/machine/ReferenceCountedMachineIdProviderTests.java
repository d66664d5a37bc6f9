package io.vesta.machine;

import org.junit.jupiter.api.Test;

import java.util.OptionalLong;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

class ReferenceCountedMachineIdProviderTests {

    private final CountingProvider real = new CountingProvider();
    private final ReferenceCountedMachineIdProvider shared = new ReferenceCountedMachineIdProvider(real, 2);

    @Test
    void everyUserGetsTheMachineIdAcquiredOnce() {
        assertThat(shared.acquire(MachineIdRange.SERVER)).isEqualTo(924);
        assertThat(shared.acquire(MachineIdRange.SERVER)).isEqualTo(924);
        assertThat(real.acquires).isEqualTo(1);
    }

    @Test
    void theRealProviderClosesWhenTheLastUserCloses() {
        shared.acquire(MachineIdRange.SERVER);
        shared.close();
        assertThat(real.closes).isZero();
        shared.close();
        assertThat(real.closes).isEqualTo(1);
    }

    @Test
    void aSecondUserAskingForAnotherRangeIsRefused() {
        shared.acquire(MachineIdRange.SERVER);
        assertThatIllegalArgumentException().isThrownBy(() -> shared.acquire(MachineIdRange.EMBEDDED))
                .withMessageContaining("924-1023").withMessageContaining("0-923");
    }

    @Test
    void leaseAndTakeoverMarkAreTheRealProviders() {
        assertThat(shared.lease()).isSameAs(real.lease);
        assertThat(shared.notBefore()).hasValue(77);
        assertThat(shared.describe()).isEqualTo("counting");
    }

    @Test
    void noUsersIsRefused() {
        assertThatIllegalArgumentException().isThrownBy(() -> new ReferenceCountedMachineIdProvider(real, 0))
                .withMessageContaining("users must be at least 1, was 0");
    }

    static final class CountingProvider implements MachineIdProvider {

        final MachineIdLease lease = MachineIdLease.forever();
        int acquires;
        int closes;

        @Override
        public long acquire(MachineIdRange range, int blockSize) {
            MachineIdProvider.refuseBlocks(this, blockSize);
            acquires++;
            return range.min();
        }

        @Override
        public String describe() {
            return "counting";
        }

        @Override
        public MachineIdLease lease() {
            return lease;
        }

        @Override
        public OptionalLong notBefore() {
            return OptionalLong.of(77);
        }

        @Override
        public void close() {
            closes++;
        }
    }
}
