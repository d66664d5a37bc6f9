package io.vesta.autoconfigure.server;

/** A request parameter that cannot be used; answered with 400 and a problem body that names it. */
final class BadParameterException extends RuntimeException {

    private final String parameter;
    private final String value;

    BadParameterException(String parameter, String value, String message) {
        super(message, null, false, false);
        this.parameter = parameter;
        this.value = value;
    }

    String parameter() {
        return parameter;
    }

    String value() {
        return value;
    }
}
