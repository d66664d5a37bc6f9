package io.vesta;

import java.util.regex.Pattern;

/** {@link SegmentNumbers#BIZ_TAG_PATTERN} compiled, and a tag made safe to show in an error. */
final class BizTagFormat {

    static final Pattern PATTERN = Pattern.compile(SegmentNumbers.BIZ_TAG_PATTERN);
    private static final int SHOWN = 160;

    private BizTagFormat() {
    }

    /** Printable ASCII as is (a double quote and a backslash escaped by a backslash), anything else as a \\u escape; cut after 160. */
    static String escape(String value) {
        StringBuilder escaped = new StringBuilder(Math.min(value.length(), SHOWN) + 16);
        for (int i = 0; i < value.length() && i < SHOWN; i++) {
            char c = value.charAt(i);
            if (c == '"' || c == '\\') {
                escaped.append('\\').append(c);
            } else if (c >= 0x20 && c < 0x7f) {
                escaped.append(c);
            } else {
                escaped.append(String.format("\\u%04x", (int) c));
            }
        }
        if (value.length() > SHOWN) {
            escaped.append("...");
        }
        return escaped.toString();
    }
}
