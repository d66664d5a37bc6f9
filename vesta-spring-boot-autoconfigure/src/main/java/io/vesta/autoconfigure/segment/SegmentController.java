package io.vesta.autoconfigure.segment;

import io.vesta.IdService;
import io.vesta.autoconfigure.server.Parameters;
import io.vesta.segment.DatedNumberOverflowException;
import io.vesta.segment.SegmentIdService;
import io.vesta.segment.SegmentView;
import io.vesta.segment.SegmentUnavailableException;
import io.vesta.segment.UnknownBizTagException;
import jakarta.servlet.http.HttpServletRequest;
import org.springframework.http.HttpStatus;
import org.springframework.http.server.PathContainer;
import org.springframework.http.server.RequestPath;
import org.springframework.http.MediaType;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.util.ServletRequestPathUtils;

import java.util.ArrayList;
import java.util.List;

/**
 * {@code GET /vesta/segment/{bizTag}}: the next number of a tag the table has; {@code ?count=N} (1..100000): N numbers,
 * increasing. A GET never creates a tag: an unknown one is a 404, whatever {@code vesta.segment.auto-create*} says.
 * {@code POST /vesta/segment/{bizTag}} answers the same and also creates a missing tag that
 * {@code vesta.segment.auto-create-tags} (or {@code auto-create=true}) covers. The tag must match
 * {@link io.vesta.SegmentNumbers#BIZ_TAG_PATTERN}, in the path as sent: {@code /vesta/segment/a;b} is refused rather than read
 * as tag {@code a}. Shaped like the central server's {@code /vesta/genid} and {@code /vesta/genids}: numbers as JSON
 * numbers ({@code id}, {@code ids}) and as strings ({@code idString}, {@code idStrings}), for JavaScript clients
 * (2^53). Failures are RFC 9457 problem details: 400 naming the bad parameter ({@code parameter},
 * {@code value}), 404 for a tag the table does not have, 503 with the reason while the database cannot give a
 * new segment, or a dated tag's counter is used up for its period. For a dated tag (
 * {@code vesta.segment.dated-tags}) the numbers carry the date; a GET answers them once the period's row exists (a
 * POST has created it), and a 404 before. The handlers are this controller's own, so they touch no other endpoint.
 */
@RestController
public class SegmentController {

    static final String PATH = "/vesta/segment/{bizTag}";

    private final SegmentIdService segments;

    public SegmentController(SegmentIdService segments) {
        this.segments = segments;
    }

    @GetMapping(path = PATH, produces = MediaType.APPLICATION_JSON_VALUE)
    public Object next(@PathVariable String bizTag, @RequestParam(required = false) String count,
            HttpServletRequest request) {
        return issue(checkedTag(bizTag, request), count, false);
    }

    /** As {@code GET}, and a missing tag that auto-creation covers is created. */
    @PostMapping(path = PATH, produces = MediaType.APPLICATION_JSON_VALUE)
    public Object nextCreating(@PathVariable String bizTag, @RequestParam(required = false) String count,
            HttpServletRequest request) {
        return issue(checkedTag(bizTag, request), count, true);
    }

    private Object issue(String bizTag, String count, boolean mayCreate) {
        if (count == null) {
            long id = mayCreate ? segments.nextId(bizTag) : segments.nextIdsOfExistingTag(bizTag, 1)[0];
            return new SegmentNumber(bizTag, id, Long.toString(id));
        }
        int wanted = parseCount(count);
        long[] ids = mayCreate ? segments.nextIds(bizTag, wanted) : segments.nextIdsOfExistingTag(bizTag, wanted);
        List<String> strings = new ArrayList<>(ids.length);
        for (long id : ids) {
            strings.add(Long.toString(id));
        }
        return new SegmentNumbers(bizTag, ids.length, ids, strings);
    }

    /**
     * {@code GET /vesta/segments}: every tag this server has loaded, with its buffers: the segment in use, how far
     * into it, whether the next one is loaded, and the loads so far.
     */
    @GetMapping(path = "/vesta/segments", produces = MediaType.APPLICATION_JSON_VALUE)
    public List<SegmentView> segments() {
        return segments.segments();
    }

    /**
     * The tag as the request sent it: the container and Spring MVC take {@code ;params} off a path segment, so
     * {@code /vesta/segment/a;b} would reach this handler as tag {@code a}. The last segment of the path as sent must
     * be the tag itself, and the tag must match the pattern.
     */
    static String checkedTag(String bizTag, HttpServletRequest request) {
        RequestPath path = ServletRequestPathUtils.hasParsedRequestPath(request)
                ? ServletRequestPathUtils.getParsedRequestPath(request)
                : ServletRequestPathUtils.parseAndCache(request);
        List<PathContainer.Element> elements = path.pathWithinApplication().elements();
        if (!elements.isEmpty() && elements.get(elements.size() - 1) instanceof PathContainer.PathSegment segment
                && (!segment.parameters().isEmpty() || segment.value().indexOf(';') >= 0)) {
            throw new BadBizTagException(segment.value(), "bizTag must be 1 to " + io.vesta.SegmentNumbers.MAX_BIZ_TAG_LENGTH
                    + " characters matching " + io.vesta.SegmentNumbers.BIZ_TAG_PATTERN + ", was the path segment '"
                    + segment.value() + "': ';' is not part of a tag, and the tag is not cut at it");
        }
        try {
            return io.vesta.SegmentNumbers.requireValidBizTag("bizTag", bizTag);
        } catch (IllegalArgumentException e) {
            throw new BadBizTagException(bizTag, e.getMessage());
        }
    }

    /** One number of a tag. */
    public record SegmentNumber(String bizTag, long id, String idString) {
    }

    /** A batch of numbers of a tag, increasing; {@code idStrings} holds the same numbers as strings. */
    public record SegmentNumbers(String bizTag, int count, long[] ids, List<String> idStrings) {
    }

    @ExceptionHandler(BadCountException.class)
    ResponseEntity<ProblemDetail> badCount(BadCountException e) {
        ProblemDetail problem = problem(HttpStatus.BAD_REQUEST, "Invalid parameter 'count'", e.getMessage());
        problem.setProperty("parameter", "count");
        problem.setProperty("value", e.value);
        return ResponseEntity.of(problem).build();
    }

    @ExceptionHandler(BadBizTagException.class)
    ResponseEntity<ProblemDetail> badBizTag(BadBizTagException e) {
        return ResponseEntity.of(badBizTagProblem(e)).build();
    }

    static ProblemDetail badBizTagProblem(BadBizTagException e) {
        ProblemDetail problem = problem(HttpStatus.BAD_REQUEST, "Invalid parameter 'bizTag'", e.getMessage());
        problem.setProperty("parameter", "bizTag");
        problem.setProperty("value", e.value);
        problem.setProperty("pattern", io.vesta.SegmentNumbers.BIZ_TAG_PATTERN);
        return problem;
    }

    @ExceptionHandler(UnknownBizTagException.class)
    ResponseEntity<ProblemDetail> unknownBizTag(UnknownBizTagException e) {
        ProblemDetail problem = problem(HttpStatus.NOT_FOUND, "Unknown bizTag", e.getMessage()
                + ". A GET never creates a tag; a POST creates one that vesta.segment.auto-create-tags matches");
        problem.setProperty("bizTag", e.bizTag());
        return ResponseEntity.of(problem).build();
    }

    @ExceptionHandler(SegmentUnavailableException.class)
    ResponseEntity<ProblemDetail> unavailable(SegmentUnavailableException e) {
        ProblemDetail problem = problem(HttpStatus.SERVICE_UNAVAILABLE, "Numbers cannot be issued: no segment could be loaded",
                e.getMessage());
        problem.setProperty("reason", "segment-unavailable");
        problem.setProperty("bizTag", e.bizTag());
        return ResponseEntity.of(problem).build();
    }

    /**
     * A dated tag's counter passed its width in this period: 503, as numbers come again when the next period starts,
     * with the tag, period and width.
     */
    @ExceptionHandler(DatedNumberOverflowException.class)
    ResponseEntity<ProblemDetail> datedOverflow(DatedNumberOverflowException e) {
        ProblemDetail problem = problem(HttpStatus.SERVICE_UNAVAILABLE,
                "Numbers cannot be issued: the dated tag's counter is used up for this period", e.getMessage());
        problem.setProperty("reason", "dated-counter-exhausted");
        problem.setProperty("bizTag", e.bizTag());
        problem.setProperty("period", e.period());
        problem.setProperty("width", e.width());
        return ResponseEntity.of(problem).build();
    }

    /** What is left of the engine's argument checks here is the tag itself, which the handlers check first. */
    @ExceptionHandler(IllegalArgumentException.class)
    ResponseEntity<ProblemDetail> badArgument(IllegalArgumentException e) {
        ProblemDetail problem = problem(HttpStatus.BAD_REQUEST, "Invalid parameter 'bizTag'", e.getMessage());
        problem.setProperty("parameter", "bizTag");
        return ResponseEntity.of(problem).build();
    }

    static ProblemDetail problem(HttpStatus status, String title, String detail) {
        ProblemDetail problem = ProblemDetail.forStatusAndDetail(status, detail);
        problem.setTitle(title);
        // The instance is left to Spring MVC, which sets it to the request's path.
        return problem;
    }

    private static int parseCount(String count) {
        int value;
        try {
            value = Integer.parseInt(Parameters.decimal(count));
        } catch (NumberFormatException e) {
            throw new BadCountException(count, "count must be an integer in [1, " + IdService.MAX_BATCH + "], was '"
                    + count + "'");
        }
        if (value < 1 || value > IdService.MAX_BATCH) {
            throw new BadCountException(count, "count must be in [1, " + IdService.MAX_BATCH + "], was " + value);
        }
        return value;
    }

    /** A tag that does not match the pattern, or a path segment with {@code ;}; the value as sent. */
    static final class BadBizTagException extends RuntimeException {

        final String value;

        BadBizTagException(String value, String message) {
            super(message, null, false, false);
            this.value = value;
        }
    }

    /** A {@code count} that is not a number in range; kept apart from the engine's own argument errors. */
    static final class BadCountException extends RuntimeException {

        final String value;

        BadCountException(String value, String message) {
            super(message, null, false, false);
            this.value = value;
        }
    }
}
