@testable import CloudSyncExport
@testable import CloudSyncModel
@testable import CloudSyncArchive
import CloudSyncTesting
import Foundation
import Testing

/// Converts `path` and returns the metrics and the report.
func convert(_ path: String, filter: MetricFilter = .all) throws -> (metrics: [HealthMetric], json: [String], report: ConversionReport) {
    let sink = CollectingSink()
    let report = try ReaderRunner.run(ExportConverter(input: path, filter: filter), into: sink.sinks)
    return (sink.metrics, sink.jsonLines, report)
}

/// Wraps records in a minimal export document.
func exportXML(_ body: String, doctype: String = "") -> String {
    """
    <?xml version="1.0" encoding="UTF-8"?>
    \(doctype)<HealthData locale="en_US">
     <ExportDate value="2024-11-03 09:15:00 -0500"/>
    \(body)
    </HealthData>

    """
}

func record(_ type: String, unit: String? = nil, value: String? = nil,
            start: String = "2024-11-02 07:00:00 -0500", end: String = "2024-11-02 07:10:00 -0500",
            source: String = "Watch", children: String = "") -> String {
    let unitAttribute = unit.map { " unit=\"\($0.xmlEscaped)\"" } ?? ""
    let valueAttribute = value.map { " value=\"\($0)\"" } ?? ""
    let head = " <Record type=\"\(type)\" sourceName=\"\(source)\"\(unitAttribute) startDate=\"\(start)\" endDate=\"\(end)\"\(valueAttribute)"
    return children.isEmpty ? head + "/>\n" : head + ">\n" + children + " </Record>\n"
}

extension String {
    /// As written inside an attribute value.
    var xmlEscaped: String {
        replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
    }
}

/// A reader over a real pipe that a thread fills with `bytes`, `inPiecesOf` bytes per write, then
/// closes: input that arrives in pieces, as standard input does. The reader may stop before the
/// end (after the export, the zip's directory is not read) and close the pipe: the writer then
/// gets EPIPE, which must not be a SIGPIPE that kills the test process (it did, under TSan).
func pipeReader(writing bytes: Data, inPiecesOf pieceSize: Int = 64 << 10) throws -> FileReader {
    signal(SIGPIPE, SIG_IGN)
    var fds: [Int32] = [0, 0]
    guard pipe(&fds) == 0 else { throw POSIXError(.EMFILE) }
    let writeEnd = fds[1]
    Thread {
        bytes.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                let n = write(writeEnd, raw.baseAddress! + offset, min(pieceSize, raw.count - offset))
                if n <= 0 { break }
                offset += n
            }
        }
        close(writeEnd)
    }.start()
    return FileReader(descriptor: fds[0], name: "pipe", owns: true)
}
