import CLibXML2
package import CloudSyncModel
import Foundation

/// Reads one GPX route (`workout-routes/route_….gpx`) into a `Route`, through libxml2's SAX push
/// parser with the export's protections: the DTD is removed before libxml2 sees it (no entity can
/// be declared, none is ever substituted), no network, nesting and size bounded.
///
/// Apple's points: `<trkpt lon lat><ele/><time/><extensions><speed/><course/><hAcc/><vAcc/>
/// </extensions></trkpt>`.
package final class GPXReader: EntryReader {

    /// A GPX larger than this is refused (Apple's are a few MB: one point per second of workout).
    static let maximumBytes: Int64 = 512 << 20
    static let maximumDepth = 64

    private var context: xmlParserCtxtPtr?
    private var stripper = DoctypeStripper(rootMarker: "<gpx")
    // Unchecked: one thread reads a route, and the checks of these properties in the callbacks of
    // each point's eight elements were 80 M of the 48 MB generated export's 7.3 G instructions.
    @exclusivity(unchecked) private var points: [RoutePoint] = []
    @exclusivity(unchecked) private var point: RoutePoint?
    @exclusivity(unchecked) private var depth = 0
    @exclusivity(unchecked) private var field: Field?
    @exclusivity(unchecked) private var text: [UInt8] = []
    private var bytes: Int64 = 0
    private var pendingError: XMLSyntaxError?

    private enum Field { case ele, time, speed, course, hAcc, vAcc }

    package init() {
        xmlInitParser()
        var handler = xmlSAXHandler()
        handler.initialized = UInt32(XML_SAX2_MAGIC)
        // Borrowed, not retained, as in `ExportParser`: the reader outlives its context.
        handler.startElementNs = { user, localname, _, _, _, _, attributeCount, _, attributes in
            guard let user, let localname else { return }
            Unmanaged<GPXReader>.fromOpaque(user)._withUnsafeGuaranteedRef { $0.start(localname, Int(attributeCount), attributes) }
        }
        handler.endElementNs = { user, localname, _, _ in
            guard let user, let localname else { return }
            Unmanaged<GPXReader>.fromOpaque(user)._withUnsafeGuaranteedRef { $0.end(localname) }
        }
        handler.characters = { user, characters, length in
            guard let user, let characters else { return }
            Unmanaged<GPXReader>.fromOpaque(user)._withUnsafeGuaranteedRef { $0.characters(characters, Int(length)) }
        }
        cloudsync_xml_silence_errors(&handler)
        context = xmlCreatePushParserCtxt(&handler, Unmanaged.passUnretained(self).toOpaque(), nil, 0, nil)
        xmlCtxtUseOptions(context, Int32(XML_PARSE_NONET.rawValue))
    }

    deinit { cloudsync_xml_free_parser(context) }

    package func consume(_ chunk: ByteText) throws {
        bytes += Int64(chunk.count)
        guard bytes <= Self.maximumBytes else { throw EntryProblem("larger than \(Self.maximumBytes >> 20) MiB") }
        try stripper.process(chunk) { try parse($0, terminate: false) }
    }

    package func finish(path: String) throws -> Route {
        try stripper.finish { try parse($0, terminate: false) }
        try parse(ByteText(start: nil, count: 0), terminate: true)
        return Route(file: path, points: points)
    }

    private func parse(_ chunk: ByteText, terminate: Bool) throws {
        cloudsync_xml_silence_generic_errors()
        let status = chunk.withMemoryRebound(to: CChar.self) { xmlParseChunk(context, $0.baseAddress, Int32($0.count), terminate ? 1 : 0) }
        if let pendingError { throw EntryProblem("line \(pendingError.line): \(pendingError.message)") }
        guard status != 0 else { return }
        let error = xmlCtxtGetLastError(context)
        let message = error.flatMap { $0.pointee.message.map { String(cString: $0) } } ?? "libxml2 error \(status)"
        let line = error.map { Int($0.pointee.line) } ?? 0
        throw EntryProblem("line \(line): \(message.trimmingCharacters(in: .whitespacesAndNewlines))")
    }

    // MARK: SAX

    private func start(_ name: UnsafePointer<xmlChar>, _ attributeCount: Int, _ attributes: UnsafeMutablePointer<UnsafePointer<xmlChar>?>?) {
        depth += 1
        if depth > Self.maximumDepth {
            stop("elements nested deeper than \(Self.maximumDepth) levels")
            return
        }
        field = nil
        let known = Self.known(name)
        if known == .trkpt {
            var latitude: Double?, longitude: Double?
            for i in 0..<attributeCount {
                guard let attributes, let local = attributes[i * 5], let start = attributes[i * 5 + 3], let end = attributes[i * 5 + 4] else { continue }
                let value = ByteText(start: start, count: end - start)
                if Self.equals(local, "lat") { latitude = Self.number(value) }
                if Self.equals(local, "lon") { longitude = Self.number(value) }
            }
            guard let latitude, let longitude, (-90...90).contains(latitude), (-180...180).contains(longitude) else {
                stop("a trkpt without a valid lat and lon")
                return
            }
            point = RoutePoint(time: nil, latitude: latitude, longitude: longitude)
        } else if point != nil {
            field = known.field
            text.removeAll(keepingCapacity: true)
        }
    }

    private func end(_ name: UnsafePointer<xmlChar>) {
        depth -= 1
        if Self.known(name) == .trkpt, let finished = point {
            points.append(finished)
            point = nil
        } else if let field, point != nil {
            switch field {
            case .ele: point!.elevation = text.withUnsafeBufferPointer(Self.number)
            case .time: point!.time = text.withUnsafeBufferPointer { ExportDateParser.epochSeconds($0) }
            case .speed: point!.speed = RouteValues.valid(text.withUnsafeBufferPointer(Self.number))
            case .course: point!.course = RouteValues.valid(text.withUnsafeBufferPointer(Self.number))
            case .hAcc: point!.horizontalAccuracy = RouteValues.valid(text.withUnsafeBufferPointer(Self.number))
            case .vAcc: point!.verticalAccuracy = RouteValues.valid(text.withUnsafeBufferPointer(Self.number))
            }
        }
        field = nil
    }

    private func characters(_ characters: UnsafePointer<xmlChar>, _ length: Int) {
        guard field != nil, text.count + length <= 256 else { return }
        text.append(contentsOf: UnsafeBufferPointer(start: characters, count: length))
    }

    private func stop(_ why: String) {
        if pendingError == nil { pendingError = XMLSyntaxError(line: Int(cloudsync_xml_current_line(context)), column: 0, message: why) }
        xmlStopParser(context)
    }

    /// The elements of a point this reader reads; `other` for the rest (`extensions`, `trk`…).
    private enum KnownName: Equatable {
        case trkpt, field(Field), other

        var field: Field? {
            if case .field(let field) = self { return field }
            return nil
        }
    }

    /// By the first byte, then one comparison: a point's eight elements went through up to seven
    /// `strcmp`s each (5% of the GPX thread's samples on the 100 MB export).
    private static func known(_ name: UnsafePointer<xmlChar>) -> KnownName {
        let candidate: (StaticString, KnownName)
        switch name[0] {
        case UInt8(ascii: "t"): candidate = name[1] == UInt8(ascii: "r") ? ("trkpt", .trkpt) : ("time", .field(.time))
        case UInt8(ascii: "e"): candidate = ("ele", .field(.ele))
        case UInt8(ascii: "s"): candidate = ("speed", .field(.speed))
        case UInt8(ascii: "c"): candidate = ("course", .field(.course))
        case UInt8(ascii: "h"): candidate = ("hAcc", .field(.hAcc))
        case UInt8(ascii: "v"): candidate = ("vAcc", .field(.vAcc))
        default: return .other
        }
        return equals(name, candidate.0) ? candidate.1 : .other
    }

    private static func equals(_ name: UnsafePointer<xmlChar>, _ literal: StaticString) -> Bool {
        strcmp(UnsafeRawPointer(name).assumingMemoryBound(to: CChar.self),
               UnsafeRawPointer(literal.utf8Start).assumingMemoryBound(to: CChar.self)) == 0
    }

    static func number(_ text: ByteText) -> Double? {
        var start = 0, end = text.count
        while start < end, text[start] == 0x20 || text[start] == 0x0A || text[start] == 0x09 || text[start] == 0x0D { start += 1 }
        while end > start, text[end - 1] == 0x20 || text[end - 1] == 0x0A || text[end - 1] == 0x09 || text[end - 1] == 0x0D { end -= 1 }
        guard let parsed = DecimalParser.parse(text.slice(start..<end)), parsed.value.isFinite else { return nil }
        return parsed.value
    }
}
