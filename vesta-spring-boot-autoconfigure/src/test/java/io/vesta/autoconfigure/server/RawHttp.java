package io.vesta.autoconfigure.server;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * HTTP/1.1 written byte for byte on a socket to 127.0.0.1: the request target goes out exactly as given, where
 * {@code java.net.http.HttpClient} and {@code URI} would refuse or rewrite {@code //}, {@code /./}, {@code ..} and
 * stray characters. One request per connection ({@code Connection: close}); a chunked answer is unchunked.
 */
final class RawHttp {

    private final int port;

    RawHttp(int port) {
        this.port = port;
    }

    /** {@code method target HTTP/1.1} with {@code Authorization: Bearer token} unless the token is null. */
    Response send(String method, String target, String token) {
        return send(method, target, token, null, Map.of());
    }

    /** A form body for a POST ({@code time=1&seq=2}), or null; extra header lines. */
    Response send(String method, String target, String token, String form, Map<String, String> headers) {
        StringBuilder request = new StringBuilder(method).append(' ').append(target).append(" HTTP/1.1\r\n")
                .append("Host: 127.0.0.1:").append(port).append("\r\nConnection: close\r\n");
        if (token != null) {
            request.append("Authorization: Bearer ").append(token).append("\r\n");
        }
        headers.forEach((name, value) -> request.append(name).append(": ").append(value).append("\r\n"));
        byte[] body = form == null ? new byte[0] : form.getBytes(StandardCharsets.US_ASCII);
        if (form != null) {
            request.append("Content-Type: application/x-www-form-urlencoded\r\nContent-Length: ").append(body.length)
                    .append("\r\n");
        }
        request.append("\r\n");
        return exchange(request.toString().getBytes(StandardCharsets.ISO_8859_1), body, "HEAD".equals(method));
    }

    /** Bytes as they are, for request lines no client would write. */
    Response sendBytes(byte[] request) {
        return exchange(request, new byte[0], false);
    }

    private Response exchange(byte[] head, byte[] body, boolean noBody) {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress("127.0.0.1", port), 5000);
            socket.setSoTimeout(30_000);
            OutputStream out = socket.getOutputStream();
            out.write(head);
            out.write(body);
            out.flush();
            byte[] answer = socket.getInputStream().readAllBytes();
            return Response.parse(answer, noBody);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Status, headers (names lower-cased, last one wins) and body as text. */
    record Response(int status, Map<String, String> headers, String body) {

        String header(String name) {
            return headers.get(name.toLowerCase(Locale.ROOT));
        }

        static Response parse(byte[] answer, boolean noBody) throws IOException {
            String text = new String(answer, StandardCharsets.ISO_8859_1);
            int end = text.indexOf("\r\n\r\n");
            if (end < 0) {
                throw new IOException("No complete answer: '" + text + "'");
            }
            String[] lines = text.substring(0, end).split("\r\n");
            int status = Integer.parseInt(lines[0].split(" ")[1]);
            Map<String, String> headers = new LinkedHashMap<>();
            for (int i = 1; i < lines.length; i++) {
                int colon = lines[i].indexOf(':');
                headers.put(lines[i].substring(0, colon).trim().toLowerCase(Locale.ROOT), lines[i].substring(colon + 1).trim());
            }
            byte[] rest = java.util.Arrays.copyOfRange(answer, end + 4, answer.length);
            if (noBody) {
                return new Response(status, headers, new String(rest, StandardCharsets.UTF_8));
            }
            if ("chunked".equalsIgnoreCase(headers.get("transfer-encoding"))) {
                rest = unchunk(rest);
            }
            return new Response(status, headers, new String(rest, StandardCharsets.UTF_8));
        }

        private static byte[] unchunk(byte[] chunked) throws IOException {
            ByteArrayOutputStream body = new ByteArrayOutputStream();
            InputStream in = new java.io.ByteArrayInputStream(chunked);
            while (true) {
                String size = line(in);
                int length = Integer.parseInt(size.split(";")[0].trim(), 16);
                if (length == 0) {
                    return body.toByteArray();
                }
                body.write(in.readNBytes(length));
                line(in);
            }
        }

        private static String line(InputStream in) throws IOException {
            StringBuilder line = new StringBuilder();
            int c;
            while ((c = in.read()) != -1 && c != '\n') {
                if (c != '\r') {
                    line.append((char) c);
                }
            }
            return line.toString();
        }

        @Override
        public String toString() {
            return status + " " + headers + " " + body;
        }
    }
}
