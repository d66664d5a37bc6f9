package io.vesta.autoconfigure.server;

import io.vesta.ClockMovedBackwardsException;
import io.vesta.machine.LeaseChangeRefusedException;
import io.vesta.machine.MachineIdUnavailableException;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;

/**
 * The server's failures as RFC 9457 problem details, for its own controllers only: 400 naming the bad parameter
 * ({@code parameter}, {@code value}); 503 with the reason while IDs cannot be issued ({@code reason}), with a
 * {@code Retry-After} when the wait is known. {@link GenIdServlet} answers its 503s with the same problems.
 */
@RestControllerAdvice(assignableTypes = { VestaServerController.class, VestaBatchController.class, VestaMakeIdController.class,
        VestaLeaseController.class, VestaStatusController.class, VestaPublicIdController.class })
public class VestaServerExceptionHandler {

    @ExceptionHandler(BadParameterException.class)
    ResponseEntity<ProblemDetail> badParameter(BadParameterException e) {
        return ResponseEntity.of(problem(e)).build();
    }

    static ProblemDetail problem(BadParameterException e) {
        ProblemDetail problem = ProblemDetail.forStatusAndDetail(HttpStatus.BAD_REQUEST, e.getMessage());
        problem.setTitle(e.parameter() != null ? "Invalid parameter '" + e.parameter() + "'" : "Invalid parameter");
        if (e.parameter() != null) {
            problem.setProperty("parameter", e.parameter());
        }
        problem.setProperty("value", e.value());
        return problem;
    }

    @ExceptionHandler(VestaLeaseController.NotFoundException.class)
    ResponseEntity<ProblemDetail> notFound(VestaLeaseController.NotFoundException e) {
        ProblemDetail problem = ProblemDetail.forStatusAndDetail(HttpStatus.NOT_FOUND, e.getMessage());
        problem.setTitle("Not found");
        return ResponseEntity.of(problem).build();
    }

    @ExceptionHandler(LeaseChangeRefusedException.class)
    ResponseEntity<ProblemDetail> leaseChangeRefused(LeaseChangeRefusedException e) {
        ProblemDetail problem = ProblemDetail.forStatusAndDetail(HttpStatus.CONFLICT, e.getMessage());
        problem.setTitle("The lease was not ended");
        problem.setProperty("reason", e.reason());
        problem.setProperty("machineId", e.machineId());
        return ResponseEntity.of(problem).build();
    }

    @ExceptionHandler(ClockMovedBackwardsException.class)
    ResponseEntity<ProblemDetail> clockMovedBackwards(ClockMovedBackwardsException e) {
        return ResponseEntity.of(problem(e)).header(HttpHeaders.RETRY_AFTER, retryAfterSeconds(e)).build();
    }

    @ExceptionHandler(MachineIdUnavailableException.class)
    ResponseEntity<ProblemDetail> machineIdUnavailable(MachineIdUnavailableException e) {
        return ResponseEntity.of(problem(e)).build();
    }

    /**
     * {@code clock-moved-backwards} when the clock is behind IDs already issued; {@code reserved-time-ahead} when the
     * generator has issued nothing since it started and the clock has not reached the time reserved before that (a
     * restart within the previous run's lease or mark), which is no fault of the clock. Both say when issuing resumes.
     */
    static ProblemDetail problem(ClockMovedBackwardsException e) {
        ProblemDetail problem = ProblemDetail.forStatusAndDetail(HttpStatus.SERVICE_UNAVAILABLE, e.getMessage());
        if (e.reservedBy().isPresent()) {
            problem.setTitle("IDs cannot be issued yet: the clock has not reached the time reserved before this start");
            problem.setProperty("reason", "reserved-time-ahead");
            problem.setProperty("reservedBy", e.reservedBy().get());
        } else {
            problem.setTitle("IDs cannot be issued: the clock moved backwards");
            problem.setProperty("reason", "clock-moved-backwards");
        }
        problem.setProperty("behindMillis", e.behind().toMillis());
        problem.setProperty("resumesAt", e.resumesAt().toString());
        return problem;
    }

    static ProblemDetail problem(MachineIdUnavailableException e) {
        ProblemDetail problem = ProblemDetail.forStatusAndDetail(HttpStatus.SERVICE_UNAVAILABLE, e.getMessage());
        problem.setTitle("IDs cannot be issued: the machine ID is not held");
        problem.setProperty("reason", "machine-id-unavailable");
        return problem;
    }

    /** Whole seconds until issuing resumes: the earliest a retry can succeed. */
    static String retryAfterSeconds(ClockMovedBackwardsException e) {
        return Long.toString(Math.max(1, (e.untilResume().toMillis() + 999) / 1000));
    }
}
