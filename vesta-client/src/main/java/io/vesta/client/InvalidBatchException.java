package io.vesta.client;

import java.io.IOException;

/**
 * A server's answer that is not a batch this client may hand out. An {@link IOException} so that it fails over to
 * the next server like any other failed exchange.
 */
final class InvalidBatchException extends IOException {

    InvalidBatchException(String message) {
        super(message);
    }
}
