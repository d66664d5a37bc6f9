package io.vesta.autoconfigure.server;

import io.vesta.IdService;

/** Parsing of the server's request parameters, each failure a {@link BadParameterException} naming the parameter. */
final class Parameters {

    private Parameters() {
    }

    static int count(String count) {
        String allowed = "an integer in [1, " + IdService.MAX_BATCH + "]";
        if (count == null) {
            throw new BadParameterException("count", null, "count is required: " + allowed);
        }
        int value;
        try {
            value = Integer.parseInt(count.trim());
        } catch (NumberFormatException e) {
            throw new BadParameterException("count", count, "count must be " + allowed + ", was '" + count + "'");
        }
        if (value < 1 || value > IdService.MAX_BATCH) {
            throw new BadParameterException("count", count, "count must be in [1, " + IdService.MAX_BATCH + "], was " + value);
        }
        return value;
    }

    /** An ID in signed decimal, or unsigned for version-1 IDs (which are negative as signed longs). */
    static long id(String id) {
        try {
            String text = id.trim();
            return text.startsWith("-") ? Long.parseLong(text) : Long.parseUnsignedLong(text);
        } catch (NumberFormatException e) {
            throw new BadParameterException("id", id, "id must be a 64-bit integer (signed, or unsigned for version-1 IDs),"
                    + " was '" + id + "'");
        }
    }

    /** A field of an ID; {@code fallback} when it is not given. Its range is checked where the ID is made. */
    static long field(String name, String value, Long fallback) {
        if (value == null || value.isBlank()) {
            if (fallback == null) {
                throw new BadParameterException(name, null, name + " is required: an integer");
            }
            return fallback;
        }
        try {
            return Long.parseLong(value.trim());
        } catch (NumberFormatException e) {
            throw new BadParameterException(name, value, name + " must be an integer, was '" + value + "'");
        }
    }
}
