/// RFC 4180 fields written from bytes: a field is quoted when it holds a comma, a quote, a CR or an
/// LF (or starts or ends with a space, which spreadsheets would trim), and quotes inside are doubled.
/// Lines end with CRLF, as the RFC says.
extension ByteBuffer {
    public mutating func appendCSVField(_ text: ByteText) {
        var needsQuotes = false
        for byte in text where byte == 0x2C || byte == 0x22 || byte == 0x0A || byte == 0x0D {
            needsQuotes = true
            break
        }
        if let first = text.first, let last = text.last, first == 0x20 || last == 0x20 { needsQuotes = true }
        guard needsQuotes else { append(text); return }
        append(UInt8(ascii: "\""))
        var runStart = 0
        for i in 0..<text.count where text[i] == 0x22 {
            append(text.slice(runStart..<(i + 1)))
            append(UInt8(ascii: "\""))
            runStart = i + 1
        }
        append(text.slice(runStart..<text.count))
        append(UInt8(ascii: "\""))
    }

    public mutating func appendCSVField(_ text: String) {
        var copy = text
        copy.withUTF8 { appendCSVField($0) }
    }

    /// A whole row: fields separated by commas, then CRLF.
    public mutating func appendCSVRow(_ fields: [String]) {
        for (i, field) in fields.enumerated() {
            if i > 0 { append(UInt8(ascii: ",")) }
            appendCSVField(field)
        }
        append("\r\n")
    }
}

/// Metrics as CSV (`--format csv`): a header, then one row per metric with the seven HealthMetric
/// fields; `metadata` is the JSON object in one column. The values are the JSON Lines' values.
public final class MetricCSVSink: MetricSink {
    public static let header = ["type", "startDate", "endDate", "value", "unit", "sourceApp", "metadata"]

    private let output: OutputFile
    private var scratch = ByteBuffer(capacity: 4096)

    public init(output: OutputFile) {
        self.output = output
        output.buffer.appendCSVRow(Self.header)
    }

    public func write(_ metric: MappedMetric) throws {
        Self.appendRow(metric, to: &output.buffer, scratch: &scratch)
        try output.flushIfFull()
    }

    public func finish() throws { try output.finish() }
    public func abandon() throws { output.abandon() }

    public func abandonedOutput(metrics: Int) -> String? {
        guard metrics > 0, let place = output.abandonedPlace else { return nil }
        return "the \(counted(metrics, "metric")) read before it are written to \(place), each on a complete row"
    }

    static func appendRow(_ metric: MappedMetric, to out: inout ByteBuffer, scratch: inout ByteBuffer) {
        out.appendCSVField(metric.type)
        out.append(UInt8(ascii: ","))
        out.appendInPlace(UTCDateFormatter.byteCount) { UTCDateFormatter.write(metric.startDate, to: $0) }
        out.append(UInt8(ascii: ","))
        out.appendInPlace(UTCDateFormatter.byteCount) { UTCDateFormatter.write(metric.endDate, to: $0) }
        out.append(UInt8(ascii: ","))
        if let text = metric.valueText { out.append(text) } else { NumberFormatting.append(metric.value, to: &out) }
        out.append(UInt8(ascii: ","))
        out.appendCSVField(metric.unit)
        out.append(UInt8(ascii: ","))
        out.appendCSVField(metric.sourceApp)
        out.append(UInt8(ascii: ","))
        scratch.removeAll()
        if let encoded = metric.metadataJSON { scratch.append(encoded) } else { MetricJSON.appendMetadata(metric, to: &scratch) }
        scratch.withBytes { out.appendCSVField($0) }
        out.append("\r\n")
    }
}

/// Metrics as one CSV file per type in a folder (`--format csv --output DIR`): `heartRate.csv`, …
/// Files are opened as their type first appears and stay open (an export has about a hundred types).
public final class MetricCSVFolderSink: MetricSink {
    private let folder: OutputFolder
    private var files: [String: OutputFile] = [:]
    private var scratch = ByteBuffer(capacity: 4096)
    private var lastType: [UInt8] = []
    private var lastFile: OutputFile?

    public init(folder: String, replacing: Bool) throws {
        self.folder = try OutputFolder(folder, replacing: replacing, isOurs: { $0.hasSuffix(".csv") })
    }

    public func write(_ metric: MappedMetric) throws {
        let file: OutputFile
        if let lastFile, lastType.withUnsafeBufferPointer({ $0.equals(metric.type) }) {
            file = lastFile
        } else {
            let type = metric.type.string
            if let open = files[type] {
                file = open
            } else {
                file = try folder.create(MetricFilter.shortName(type) + ".csv")
                file.buffer.appendCSVRow(MetricCSVSink.header)
                files[type] = file
            }
            lastType = Array(metric.type)
            lastFile = file
        }
        MetricCSVSink.appendRow(metric, to: &file.buffer, scratch: &scratch)
        try file.flushIfFull()
    }

    public func finish() throws { try folder.finish() }

    /// A folder of partial files would look like a complete run: nothing is moved in.
    public func abandon() throws { folder.abandon() }

    public func abandonedOutput(metrics: Int) -> String? {
        "nothing was written to \(folder.path): the files are moved in only once the whole export is read"
    }
}
