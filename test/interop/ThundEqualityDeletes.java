import java.util.List;
import java.util.UUID;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.GenericFileWriterFactory;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.deletes.EqualityDeleteWriter;
import org.apache.iceberg.encryption.EncryptedFiles;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;

/**
 * A foreign writer of equality deletes for the format v3 interop tests (test/interop/spark_v3.py
 * calls it through py4j): Iceberg's own generic Parquet writer writes one equality delete file on
 * the named columns, and a RowDelta commits it. Values arrive as text (tab-separated rows, \N for
 * null) and are converted here by the column's Iceberg type, so py4j never boxes a long as an
 * Integer. Unpartitioned tables only.
 */
public final class ThundEqualityDeletes {
  private ThundEqualityDeletes() {}

  /** Returns {"path": …, "record_count": …, "snapshot_id": …} as JSON text. */
  public static String write(Table table, String columnList, String rows) throws Exception {
    if (!table.spec().isUnpartitioned()) {
      throw new IllegalArgumentException("ThundEqualityDeletes writes to unpartitioned tables only");
    }
    String[] columns = columnList.split(",");
    Schema deleteSchema = table.schema().select(columns);
    int[] fieldIds = new int[columns.length];
    for (int i = 0; i < columns.length; i++) {
      fieldIds[i] = table.schema().findField(columns[i]).fieldId();
    }
    GenericFileWriterFactory factory =
        new GenericFileWriterFactory.Builder(table)
            .deleteFileFormat(FileFormat.PARQUET)
            .equalityFieldIds(fieldIds)
            .equalityDeleteRowSchema(deleteSchema)
            .build();
    String location = table.locationProvider().newDataLocation("eq-deletes-" + UUID.randomUUID() + ".parquet");
    EqualityDeleteWriter<Record> writer =
        factory.newEqualityDeleteWriter(EncryptedFiles.plainAsEncryptedOutput(table.io().newOutputFile(location)), table.spec(), null);
    List<Types.NestedField> fields = deleteSchema.columns();
    try {
      for (String line : rows.split("\n")) {
        if (line.isEmpty()) continue;
        String[] values = line.split("\t", -1);
        if (values.length != fields.size()) {
          throw new IllegalArgumentException("row has " + values.length + " values for " + fields.size() + " columns: " + line);
        }
        GenericRecord record = GenericRecord.create(deleteSchema);
        for (int i = 0; i < values.length; i++) {
          record.set(i, "\\N".equals(values[i]) ? null : convert(fields.get(i).type(), values[i]));
        }
        writer.write(record);
      }
    } finally {
      writer.close();
    }
    DeleteFile deletes = writer.toDeleteFile();
    table.newRowDelta().addDeletes(deletes).commit();
    table.refresh();
    return "{\"path\":\"" + deletes.location() + "\",\"record_count\":" + deletes.recordCount()
        + ",\"snapshot_id\":\"" + table.currentSnapshot().snapshotId() + "\"}";
  }

  private static Object convert(Type type, String text) {
    switch (type.typeId()) {
      case INTEGER:
        return Integer.valueOf(text);
      case LONG:
        return Long.valueOf(text);
      case STRING:
        return text;
      case BOOLEAN:
        return Boolean.valueOf(text);
      case DOUBLE:
        return Double.valueOf(text);
      default:
        throw new IllegalArgumentException("ThundEqualityDeletes does not convert " + type);
    }
  }
}
