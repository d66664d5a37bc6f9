package io.vesta.autoconfigure.segment;

import io.vesta.segment.SegmentIdService;
import io.vesta.segment.SegmentUnavailableException;
import jakarta.servlet.http.HttpServletRequest;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

import java.net.URI;

/**
 * {@code POST /vesta/admin/segments/{bizTag}}: creates a segment tag, the explicit, authorized act of
 * {@code vesta.segment.admin-enabled=true}, which needs {@code vesta.server.admin-tokens} (the token filter lets only
 * an admin token under {@code /vesta/admin/}). {@code ?step=} (1..1000000000, default {@code vesta.segment.default-step})
 * is the tag's table step, {@code ?start=} (default 1) its first number. 201 with the row when this call created it;
 * 200 with the row as it is when the tag existed already (the row is left alone: repeating the call is harmless).
 */
@RestController
public class SegmentAdminController {

    static final String PATH = "/vesta/admin/segments/{bizTag}";

    private final SegmentIdService segments;

    public SegmentAdminController(SegmentIdService segments) {
        this.segments = segments;
    }

    @PostMapping(path = PATH, produces = MediaType.APPLICATION_JSON_VALUE)
    public ResponseEntity<SegmentIdService.CreatedTag> create(@PathVariable String bizTag,
            @RequestParam(required = false) String step, @RequestParam(required = false) String start,
            HttpServletRequest request) {
        String tag = SegmentController.checkedTag(bizTag, request);
        long tableStep = number("step", step, segments.defaultStep(), SegmentIdService.STEP_LIMIT);
        long first = number("start", start, 1, Long.MAX_VALUE);
        SegmentIdService.CreatedTag created;
        try {
            created = segments.createTag(tag, (int) tableStep, first);
        } catch (SegmentUnavailableException e) {
            throw e;
        } catch (IllegalArgumentException e) {
            throw new BadNumberException("start", start, e.getMessage());
        }
        return created.created()
                ? ResponseEntity.created(URI.create("/vesta/segment/" + tag)).body(created)
                : ResponseEntity.ok(created);
    }

    /** ASCII digits only, in [1, max]; {@code fallback} when not given. */
    private static long number(String name, String value, long fallback, long max) {
        if (value == null) {
            return fallback;
        }
        String allowed = name + " must be an integer in [1, " + max + "] in ASCII digits, was '" + value + "'";
        if (value.isEmpty() || value.length() > 19 || !value.chars().allMatch(c -> c >= '0' && c <= '9')) {
            throw new BadNumberException(name, value, allowed);
        }
        long number = Long.parseLong(value);
        if (number < 1 || number > max) {
            throw new BadNumberException(name, value, allowed);
        }
        return number;
    }

    @ExceptionHandler(SegmentController.BadBizTagException.class)
    ResponseEntity<ProblemDetail> badBizTag(SegmentController.BadBizTagException e) {
        return ResponseEntity.of(SegmentController.badBizTagProblem(e)).build();
    }

    @ExceptionHandler(BadNumberException.class)
    ResponseEntity<ProblemDetail> badNumber(BadNumberException e) {
        ProblemDetail problem = SegmentController.problem(HttpStatus.BAD_REQUEST, "Invalid parameter '" + e.parameter + "'",
                e.getMessage());
        problem.setProperty("parameter", e.parameter);
        problem.setProperty("value", e.value);
        return ResponseEntity.of(problem).build();
    }

    @ExceptionHandler(SegmentUnavailableException.class)
    ResponseEntity<ProblemDetail> unavailable(SegmentUnavailableException e) {
        ProblemDetail problem = SegmentController.problem(HttpStatus.SERVICE_UNAVAILABLE, "The tag could not be created",
                e.getMessage());
        problem.setProperty("reason", "segment-unavailable");
        problem.setProperty("bizTag", e.bizTag());
        return ResponseEntity.of(problem).build();
    }

    /** A {@code step} or {@code start} that is not a number in range. */
    static final class BadNumberException extends RuntimeException {

        final String parameter;
        final String value;

        BadNumberException(String parameter, String value, String message) {
            super(message, null, false, false);
            this.parameter = parameter;
            this.value = value;
        }
    }
}
