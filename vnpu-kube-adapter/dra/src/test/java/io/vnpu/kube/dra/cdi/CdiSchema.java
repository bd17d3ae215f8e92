package io.vnpu.kube.dra.cdi;

import com.networknt.schema.InputFormat;
import com.networknt.schema.Schema;
import com.networknt.schema.SchemaRegistry;
import com.networknt.schema.SpecificationVersion;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * The CDI spec JSON schema of the test resources ({@code cdi/cdi-spec-schema.json}, written from
 * the CDI 1.1.0 field list) with a real JSON-schema validator.
 */
public final class CdiSchema {
  private static final Schema SCHEMA = load();

  private CdiSchema() {}

  private static Schema load() {
    try (InputStream in = CdiSchema.class.getResourceAsStream("/cdi/cdi-spec-schema.json")) {
      String text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
      return SchemaRegistry.withDefaultDialect(SpecificationVersion.DRAFT_7)
          .getSchema(text, InputFormat.JSON);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Schema violations of a spec file's bytes, empty when valid. */
  public static List<String> violations(byte[] json) {
    return SCHEMA.validate(new String(json, StandardCharsets.UTF_8), InputFormat.JSON).stream()
        .map(Object::toString)
        .toList();
  }
}
