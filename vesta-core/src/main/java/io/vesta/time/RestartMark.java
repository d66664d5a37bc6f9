package io.vesta.time;

import io.vesta.layout.IssuingLayout;

/**
 * A high-water mark as a store holds it: every ID issued under {@code layout} lies strictly before {@code millis}
 * (Unix ms). The layout is null for a mark written before marks recorded one (a bare number, by Vesta 0.1 or a store
 * that keeps no layout): it is read as written under the layout configured now, which is what those versions did.
 */
public record RestartMark(IssuingLayout layout, long millis) {
}
