package io.vesta.autoconfigure.server;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.vesta.DecodedId;
import io.vesta.EmbeddedIdService;
import io.vesta.IdFormat;
import io.vesta.IdType;
import io.vesta.SettingNames;
import io.vesta.layout.IdLayout;
import org.springframework.http.MediaType;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * The REST API of a central server, for any language: IDs of genMethod 2 ({@code GET /vesta/genid} itself is
 * {@link GenIdServlet}). Every ID appears as a JSON number ({@code id}) and as a string ({@code idString}):
 * JavaScript numbers lose integers above 2^53 and Vesta IDs are about 2^60. Failures are RFC 9457 problem
 * details: 400 naming the bad parameter, 503 with the reason while no ID can be issued
 * ({@link VestaServerExceptionHandler}).
 */
@RestController
public class VestaServerController {

    private final EmbeddedIdService ids;

    public VestaServerController(ServerIdServices services) {
        this.ids = services.rest();
    }

    /**
     * {@code GET /vesta/genids?count=N}: N IDs (1 to 100,000), strictly increasing; with {@code format=base32} or
     * {@code base62} the {@code idStrings} are in that form and the answer names it.
     */
    @GetMapping(path = "/vesta/genids", produces = MediaType.APPLICATION_JSON_VALUE)
    public IdsResponse genIds(@RequestParam(required = false) String count,
            @RequestParam(required = false) String format) {
        int size = Parameters.count(count);
        IdFormat textForm = Parameters.format(format);
        long[] batch = ids.genIds(size);
        IdFormat written = textForm == null ? IdFormat.DECIMAL : textForm;
        List<String> strings = new ArrayList<>(batch.length);
        for (long id : batch) {
            strings.add(written.format(id));
        }
        return new IdsResponse(batch.length, batch, strings, textForm == null ? null : SettingNames.kebab(textForm));
    }

    /**
     * {@code GET /vesta/expid/{id}}: an ID's fields and the instant its time field stands for; the ID in decimal, or
     * in the form {@code format=base32}/{@code base62} names.
     */
    @GetMapping(path = "/vesta/expid/{id}", produces = MediaType.APPLICATION_JSON_VALUE)
    public DecodedId expId(@PathVariable String id, @RequestParam(required = false) String format) {
        return DecodedId.of(Parameters.id(id, Parameters.format(format)), ids.codec());
    }

    /** {@code GET /vesta/transtime/{time}}: the instant a time field of this server's type stands for. */
    @GetMapping(path = "/vesta/transtime/{time}", produces = MediaType.APPLICATION_JSON_VALUE)
    public TransTime transTime(@PathVariable String time) {
        long maxTime = IdLayout.of(ids.type()).maxTime();
        long value;
        try {
            value = Long.parseLong(Parameters.decimal(time));
        } catch (NumberFormatException e) {
            throw new BadParameterException("time", time, "time must be an integer in [0, " + maxTime + "] ("
                    + ids.type() + " time field), was '" + time + "'");
        }
        if (value < 0 || value > maxTime) {
            throw new BadParameterException("time", time, "time must be in [0, " + maxTime + "] (" + ids.type()
                    + " time field), was " + value);
        }
        return new TransTime(value, ids.type(), ids.transTime(value));
    }

    /**
     * A batch of IDs, strictly increasing; {@code idStrings} holds the same IDs as strings, in decimal or in the
     * {@code format} that was asked for ({@code null}, and left out of the JSON, when none was).
     */
    public record IdsResponse(int count, long[] ids, List<String> idStrings,
            @JsonInclude(JsonInclude.Include.NON_NULL) String format) {

        /** A batch whose strings are decimal, as before {@code format} existed. */
        public IdsResponse(int count, long[] ids, List<String> idStrings) {
            this(count, ids, idStrings, null);
        }
    }

    /** A time field and the instant it stands for. */
    public record TransTime(long time, IdType type, Instant instant) {
    }
}
