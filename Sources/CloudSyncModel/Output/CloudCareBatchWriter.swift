import Foundation

/// The identity a CloudCare envelope carries.
public struct CloudCareIdentity: Sendable, Equatable {
    public var userId: String
    public var deviceId: String
    public init(userId: String, deviceId: String) {
        self.userId = userId
        self.deviceId = deviceId
    }
}

/// Writes `HealthDataExport` envelopes (`--format cloudcare`): at most `batchSize` metrics each,
/// sorted by `startDate`, every envelope sharing one `dataRange` (first start to last end).
///
/// export.xml is grouped by type, not by date, so the metrics must be sorted, and the range is
/// only known at the end. Metrics are encoded once into runs of up to `runLimit` bytes; a full run
/// is sorted and spilled to an anonymous temporary file; at the end the runs are merged. Memory is
/// bounded by the run size, whatever the size of the export.
public final class CloudCareBatchWriter: MetricSink {
    public enum Destination: Sendable {
        /// One JSON array of envelopes.
        case standardOutput
        /// `batch-000001.json`, … in this folder (created if missing; see `OutputFolder`).
        /// `replacing` deletes an earlier run's batch files first; without it the folder must be empty.
        case directory(String, replacing: Bool = false)
    }

    private let identity: CloudCareIdentity
    private let batchSize: Int
    private let destination: Destination
    private let folder: OutputFolder?
    private let runLimit: Int
    private var run = SortRun()
    private var spilled: [SpilledRun] = []
    private var firstStart = Int64.max
    private var lastEnd = Int64.min
    private var scratch = ByteBuffer(capacity: 4096)
    public private(set) var batchesWritten = 0

    public init(identity: CloudCareIdentity, batchSize: Int = 1000, destination: Destination,
                runLimit: Int = 32 << 20) throws {
        self.identity = identity
        self.batchSize = batchSize
        self.destination = destination
        self.runLimit = runLimit
        if case .directory(let path, let replacing) = destination {
            folder = try OutputFolder(path, replacing: replacing)
        } else {
            folder = nil
        }
    }

    public func write(_ metric: MappedMetric) throws {
        firstStart = Swift.min(firstStart, metric.startDate)
        lastEnd = Swift.max(lastEnd, metric.endDate)
        scratch.removeAll()
        MetricJSON.append(metric, to: &scratch)
        scratch.withBytes { run.add(startDate: metric.startDate, json: $0) }
        if run.byteCount >= runLimit { try spill() }
    }

    public func finish() throws {
        let envelopes = EnvelopeWriter(writer: self)
        if spilled.isEmpty {
            try run.sorted { json in try envelopes.add(json) }
        } else {
            if run.count > 0 { try spill() }
            try SpilledRun.merge(spilled) { json in try envelopes.add(json) }
        }
        try envelopes.close()
        try folder?.finish()
    }

    /// A partial set of batches would not share the right `dataRange`: write nothing.
    public func abandon() throws { folder?.abandon() }

    public func abandonedOutput(metrics: Int) -> String? {
        "no batch was written: batches are written only once the whole export is read, so that they share one dataRange"
    }

    private func spill() throws {
        spilled.append(try SpilledRun(run))
        run = SortRun()
    }

    // MARK: Envelopes

    /// Groups sorted metrics into envelopes and sends them to the destination.
    private final class EnvelopeWriter {
        let writer: CloudCareBatchWriter
        var envelope = ByteBuffer(capacity: 1 << 20)
        var inEnvelope = 0
        var stdout: OutputFile?
        let header: [UInt8]

        init(writer: CloudCareBatchWriter) {
            self.writer = writer
            var head = ByteBuffer(capacity: 512)
            let hasMetrics = writer.firstStart <= writer.lastEnd
            CloudCareEnvelope.appendHead(identity: writer.identity, range: hasMetrics ? (writer.firstStart, writer.lastEnd) : nil, to: &head)
            header = head.withBytes { Array($0) }
            if case .standardOutput = writer.destination {
                stdout = .standardOutput()
                stdout!.buffer.append(UInt8(ascii: "["))
            }
        }

        func add(_ json: ByteText) throws {
            if inEnvelope == 0 {
                header.withUnsafeBufferPointer { envelope.append($0) }
            } else {
                envelope.append(UInt8(ascii: ","))
            }
            envelope.append(json)
            inEnvelope += 1
            if inEnvelope == writer.batchSize { try emit() }
        }

        func close() throws {
            if inEnvelope > 0 { try emit() }
            if let stdout {
                stdout.buffer.append("]\n")
                try stdout.finish()
            }
        }

        private func emit() throws {
            CloudCareEnvelope.appendTail(to: &envelope)
            writer.batchesWritten += 1
            switch writer.destination {
            case .standardOutput:
                if writer.batchesWritten > 1 { stdout!.buffer.append(UInt8(ascii: ",")) }
                envelope.withBytes { stdout!.buffer.append($0) }
                try stdout!.flushIfFull()
            case .directory:
                let file = try writer.folder!.create(String(format: "batch-%06d.json", writer.batchesWritten))
                envelope.withBytes { file.buffer.append($0) }
                file.buffer.append(UInt8(ascii: "\n"))
                try file.finish()
            }
            envelope.removeAll()
            inEnvelope = 0
        }
    }
}

