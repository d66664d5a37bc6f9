package io.vesta.autoconfigure.server;

import io.vesta.DecodedId;
import io.vesta.PublicIds;
import io.vesta.layout.IdCodec;
import java.util.Locale;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.http.MediaType;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * Public IDs for an operator, both ways: {@code GET /vesta/admin/public-ids/{publicId}} gives the ID a public ID stands
 * for, decoded as {@code /vesta/expid} does; {@code GET /vesta/admin/public-ids?id=} gives an ID's public form (the
 * ID in decimal, or in base 32 or 62 with {@code format}, as {@code expid} reads it). An
 * admin token ({@link ServerTokenFilter}: everything under {@code /vesta/admin/}), because the conversion undoes what
 * public IDs hide. 404 when the application has no {@link PublicIds} ({@code vesta.public-id.enabled}); 400 naming the
 * parameter for a public ID that does not decode (its length, a character, an unknown key, a failed check) or an ID
 * that is not a 64-bit number. Reads only: nothing is created or issued.
 */
@RestController
public class VestaPublicIdController {

    static final String PATH = "/vesta/admin/public-ids";

    private final ObjectProvider<PublicIds> publicIds;
    private final IdCodec codec;

    public VestaPublicIdController(ObjectProvider<PublicIds> publicIds, ServerIdServices services) {
        this.publicIds = publicIds;
        this.codec = services.rest().codec();
    }

    @GetMapping(path = PATH + "/{publicId}", produces = MediaType.APPLICATION_JSON_VALUE)
    public Conversion fromPublic(@PathVariable String publicId) {
        PublicIds conversion = publicIds();
        long id;
        try {
            id = conversion.fromPublic(publicId);
        } catch (IllegalArgumentException e) {
            throw new BadParameterException("publicId", publicId, e.getMessage());
        }
        return new Conversion(publicId.toUpperCase(Locale.ROOT), DecodedId.of(id, codec));
    }

    @GetMapping(path = PATH, produces = MediaType.APPLICATION_JSON_VALUE)
    public Conversion toPublic(@RequestParam(required = false) String id,
            @RequestParam(required = false) String format) {
        PublicIds conversion = publicIds();
        if (id == null) {
            throw new BadParameterException("id", null, "id is required: a 64-bit integer (signed, or unsigned for"
                    + " version-1 IDs); " + Parameters.ID_FORMS);
        }
        long value = Parameters.id(id, Parameters.format(format));
        return new Conversion(conversion.toPublic(value), DecodedId.of(value, codec));
    }

    private PublicIds publicIds() {
        PublicIds available = publicIds.getIfAvailable();
        if (available == null) {
            throw new VestaLeaseController.NotFoundException("Public IDs are off: set vesta.public-id.enabled=true"
                    + " with vesta.public-id.keys to convert them at " + PATH);
        }
        return available;
    }

    /** A public ID (in upper case, as it is written) and the ID it stands for, decoded. */
    public record Conversion(String publicId, DecodedId id) {
    }
}
