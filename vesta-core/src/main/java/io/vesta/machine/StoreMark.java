package io.vesta.machine;

import java.lang.System.Logger.Level;
import java.time.Instant;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * Which instance of a store that can lose acknowledged writes (a Redis server restarted or failed over, an etcd
 * cluster restored from a snapshot) the leases were last claimed on, and until when claims must start later (Unix ms):
 * {@code instance|settleUntil}, kept beside the leases and written by every claim. A claim that finds another
 * instance, or no mark beside leases that may have lost theirs, lets every lease that could have been lost end
 * before its IDs start: a lease plus the clock skew after it noticed ({@link #settle}).
 */
public record StoreMark(String instance, long settleUntil) {

    /** The mark in {@code raw}, {@code instance|settleUntil}; null when there is none or it is no mark. */
    public static StoreMark parse(String raw) {
        int bar = raw == null ? -1 : raw.lastIndexOf('|');
        if (bar < 0) {
            return null;
        }
        try {
            return new StoreMark(raw.substring(0, bar), Long.parseLong(raw.substring(bar + 1)));
        } catch (NumberFormatException e) {
            return null;
        }
    }

    public String encode() {
        return instance + "|" + settleUntil;
    }

    /**
     * What a claim at {@code now} on {@code instance} writes, when the store holds {@code read}: the same mark, still
     * waiting until its settle time if that is to come ({@code recent}); a new one waiting {@code wait} from now when
     * it names another instance ({@code changed}, given the mark read); {@code missing}'s when there is none.
     */
    public static Settle settle(StoreMark read, String instance, long now, long wait, Supplier<Settle> missing,
            Function<StoreMark, String> changed, String recent) {
        if (read == null) {
            return missing.get();
        }
        if (!read.instance().equals(instance)) {
            return new Settle(new StoreMark(instance, now + wait), changed.apply(read));
        }
        return new Settle(read, read.settleUntil() > now ? recent : null);
    }

    /** The mark a claim writes, and why its IDs must wait (null when they need not). */
    public record Settle(StoreMark mark, String reason) {

        /** A new mark on {@code instance} that waits until {@code settleUntil} for {@code reason} if that is to come. */
        public static Settle until(String instance, long settleUntil, long now, String reason) {
            return new Settle(new StoreMark(instance, settleUntil), settleUntil > now ? reason : null);
        }

        /** Whether a claim at {@code now} must start after the mark's settle time. */
        public boolean waitsPast(long now) {
            return reason != null && mark.settleUntil() > now;
        }

        /** The time a claim at {@code now} starts its IDs after: {@code notBefore}, or the settle time if later. */
        public Long notBefore(Long notBefore, long now) {
            if (!waitsPast(now)) {
                return notBefore;
            }
            return notBefore == null ? mark.settleUntil() : Math.max(notBefore, mark.settleUntil());
        }

        /** Logs, once a claim of {@code machineId} at {@code now} was taken, why its IDs start only after {@code start}. */
        public void logWait(System.Logger log, long machineId, long now, Long start) {
            if (waitsPast(now)) {
                log.log(Level.WARNING, () -> reason + "; the IDs of machine ID " + machineId + " start after "
                        + Instant.ofEpochMilli(start) + ", when every lease that may have been lost has ended");
            }
        }
    }
}
