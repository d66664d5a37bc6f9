package io.vesta.segment;

import java.time.Instant;

/**
 * A snapshot of one business tag's buffers, for monitoring. Taken without locks, so under load the fields
 * are each current but not necessarily from the same instant.
 *
 * @param bizTag the business tag
 * @param segmentStart the first number of the segment in use (inclusive); 0 before the first load
 * @param segmentEnd the end of the segment in use (exclusive): the tag's max_id when it was loaded
 * @param position the next number the segment in use hands out; equal to {@code segmentEnd} when used up
 * @param step the step of the last load, which the next load starts from (the dynamic step)
 * @param tableStep the step the table holds for the tag: the floor of the dynamic step
 * @param nextReady whether the next segment is loaded and waiting
 * @param nextStart the first number of the next segment, or 0 when it is not ready
 * @param nextEnd the end (exclusive) of the next segment, or 0 when it is not ready
 * @param loading whether a load is in flight
 * @param lastLoadTime when the last successful load started, by the service's clock; null before the first
 * @param loads how many segments were loaded
 * @param failedLoads how many loads failed
 * @param waits how many calls found both buffers empty and waited for the database (the first calls
 *        for a tag always do)
 * @param lastFailure the failure of the last load if it failed, else null
 */
public record SegmentView(String bizTag, long segmentStart, long segmentEnd, long position, int step, int tableStep,
        boolean nextReady, long nextStart, long nextEnd, boolean loading, Instant lastLoadTime, long loads,
        long failedLoads, long waits, String lastFailure) {

    /** Numbers left in the segment in use. */
    public long remaining() {
        return segmentEnd - position;
    }

    /** Numbers in memory that this node may still hand out: the rest of the segment in use and the next segment. */
    public long remainingInMemory() {
        return remaining() + (nextReady ? nextEnd - nextStart : 0);
    }
}
