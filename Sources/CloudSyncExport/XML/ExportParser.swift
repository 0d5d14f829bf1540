public import CloudSyncModel
import CLibXML2

/// Receives each top-level element of the export as it completes.
public protocol ExportElementConsumer: AnyObject {
    /// Called once before the first element, with export.xml's size when the input declares it.
    func begin(expectedBytes: Int64?)
    /// `tree` is a view of a batch that is reused: copy what must outlive the call.
    func consume(_ tree: ElementTree) throws
}

extension ExportElementConsumer {
    public func begin(expectedBytes: Int64?) {}
}

/// Takes the batch the parser fills after each complete top-level element, and returns the batch
/// to go on filling: the same one while it has room, an empty one once it was handed over (the
/// parser fills one batch while another thread maps the previous ones).
protocol ElementBatchHandoff: AnyObject {
    func completed(_ batch: ElementBatch) throws -> ElementBatch
}

/// Calls the consumer on the parser's own thread with each element as it completes, and empties
/// the batch for the next.
private final class DirectHandoff: ElementBatchHandoff {
    unowned let consumer: any ExportElementConsumer
    init(_ consumer: any ExportElementConsumer) { self.consumer = consumer }
    func completed(_ batch: ElementBatch) throws -> ElementBatch {
        defer { batch.removeAll() }
        for i in 0..<batch.count { try consumer.consume(batch.tree(i)) }
        return batch
    }
}

/// libxml2's SAX2 push parser, fed chunk by chunk, turning the export into `ElementTree`s.
///
/// Owns the libxml2 context. Configured to never touch the network, never load a DTD and never
/// substitute entities: every SAX handler except the two element callbacks is NULL, so libxml2 has
/// nowhere to store an entity declaration or build a document tree.
public final class ExportParser {
    /// Nesting below the top-level element that is still copied into the tree (libxml2 stops at 256).
    @exclusivity(unchecked) public private(set) var rootName: String?
    /// `HealthData`'s `locale` attribute.
    @exclusivity(unchecked) public private(set) var locale: String?
    /// How many elements of each kind were seen, nested ones included (for `inspect`).
    public var elementCounts: [Int] { Array(UnsafeBufferPointer(start: counts, count: ElementName.allCases.count)) }
    private let counts = UnsafeMutablePointer<Int>.allocate(capacity: ElementName.allCases.count)
    /// Element names outside the export DTD, with counts; past `maximumUnknownNames` distinct
    /// names, the rest are counted under `otherUnknownName` so a hostile file cannot grow this.
    @exclusivity(unchecked) public private(set) var unknownElements: [String: Int] = [:]
    static let maximumUnknownNames = 1000
    public static let otherUnknownName = "(other names)"
    /// libxml2's own default limit, which its push parser does not apply to every path.
    public static let maximumDepth = 256

    @exclusivity(unchecked) private var context: xmlParserCtxtPtr?
    @exclusivity(unchecked) private var batch = ElementBatch()
    private let handoff: any ElementBatchHandoff
    @exclusivity(unchecked) private var depth = 0
    /// Index in the element being built of the open element at each depth below the top level.
    @exclusivity(unchecked) private var openNodes: [Int32] = []
    @exclusivity(unchecked) private var pendingError: (any Error)?
    private let elementNames = InternedNameCache<ElementName>(placeholder: .unknown, classify: ElementName.init)
    private let attributeNames = InternedNameCache<AttributeName>(placeholder: .other, classify: AttributeName.init)

    /// Delivers each element to `consumer` on the parsing thread.
    public convenience init(consumer: any ExportElementConsumer) {
        self.init(handoff: DirectHandoff(consumer))
    }

    init(handoff: any ElementBatchHandoff) {
        self.handoff = handoff
        counts.initialize(repeating: 0, count: ElementName.allCases.count)
        xmlInitParser()
        var handler = xmlSAXHandler()
        handler.initialized = UInt32(XML_SAX2_MAGIC)
        // The parser outlives its context, so a callback borrows it without a retain and a release
        // (`_withUnsafeGuaranteedRef`): those were 3% of the parser thread's samples on the 100 MB
        // import, the thread the import waits for.
        handler.startElementNs = { user, localname, _, _, _, _, attributeCount, _, attributes in
            guard let user, let localname else { return }
            Unmanaged<ExportParser>.fromOpaque(user)._withUnsafeGuaranteedRef {
                $0.startElement(localname, Int(attributeCount), attributes)
            }
        }
        handler.endElementNs = { user, _, _, _ in
            guard let user else { return }
            Unmanaged<ExportParser>.fromOpaque(user)._withUnsafeGuaranteedRef { $0.endElement() }
        }
        cloudsync_xml_silence_errors(&handler)
        context = xmlCreatePushParserCtxt(&handler, Unmanaged.passUnretained(self).toOpaque(), nil, 0, nil)
        // No entity substitution (no XML_PARSE_NOENT), no DTD loading, no network.
        xmlCtxtUseOptions(context, Int32(XML_PARSE_NONET.rawValue))
    }

    deinit {
        cloudsync_xml_free_parser(context)
        counts.deallocate()
    }

    /// Parses the next bytes of the document.
    public func parse(_ bytes: ByteText) throws {
        guard bytes.count > 0 else { return }
        cloudsync_xml_silence_generic_errors()  // per thread, and cheap: on every chunk to be sure
        var offset = 0
        // xmlParseChunk takes an Int32 size.
        while offset < bytes.count {
            let n = Swift.min(bytes.count - offset, 1 << 30)
            let status = bytes.baseAddress!.withMemoryRebound(to: CChar.self, capacity: bytes.count) {
                xmlParseChunk(context, $0 + offset, Int32(n), 0)
            }
            try check(status)
            offset += n
        }
    }

    /// Ends the document: reports truncation and a missing root.
    public func finish() throws {
        cloudsync_xml_silence_generic_errors()
        let status = xmlParseChunk(context, nil, 0, 1)
        // The input ended with the root still open. libxml2 then says "Extra content at the end of
        // the document" or "Premature end of data" depending on where the cut fell; either way the
        // file was cut short, which is what the user needs to hear.
        if status != 0, pendingError == nil, depth > 0, rootName != nil, !Self.isEncodingError(status) {
            let line = xmlCtxtGetLastError(context).map { Int($0.pointee.line) } ?? currentLine
            throw XMLSyntaxError(line: line, column: 0,
                                 message: "the file ends before </\(rootName!)>: it was cut short (an incomplete copy or download?)")
        }
        try check(status)
    }

    /// Errors about the bytes' encoding, which are not about where the input ended.
    static func isEncodingError(_ status: Int32) -> Bool {
        [XML_ERR_INVALID_ENCODING, XML_ERR_UNSUPPORTED_ENCODING, XML_ERR_INVALID_CHAR].map { Int32($0.rawValue) }.contains(status)
    }

    /// The line libxml2 is at.
    public var currentLine: Int { Int(cloudsync_xml_current_line(context)) }

    private func check(_ status: Int32) throws {
        if let pendingError { throw pendingError }
        guard status != 0 else { return }
        if let error = xmlCtxtGetLastError(context) {
            var message = (error.pointee.message.map { String(cString: $0) } ?? "error \(status)").trimmingTrailingNewlines()
            // libxml2 says this when a value passes its 10,000,000-byte limit (no XML_PARSE_HUGE).
            if message.contains("Huge input lookup") || message.contains("length too long") {
                message += " (a value longer than libxml2's limit of 10,000,000 bytes)"
            }
            throw XMLSyntaxError(line: Int(error.pointee.line), column: Int(error.pointee.int2), message: message)
        }
        let message = status == Int32(XML_ERR_INVALID_ENCODING.rawValue)
            ? "the bytes do not match the encoding the file declares (Apple's exports are UTF-8)"
            : "libxml2 error \(status)"
        throw XMLSyntaxError(line: currentLine, column: 0, message: message)
    }

    // MARK: SAX callbacks

    private func startElement(_ localname: UnsafePointer<xmlChar>, _ attributeCount: Int,
                              _ attributes: UnsafeMutablePointer<UnsafePointer<xmlChar>?>?) {
        depth += 1
        guard depth <= Self.maximumDepth else {
            stop(with: XMLSyntaxError(line: currentLine, column: 0, message: "elements nested deeper than \(Self.maximumDepth) levels"))
            return
        }
        let name = elementNames.name(localname)
        counts[Int(name.rawValue)] += 1
        if name == .unknown { countUnknown(localname) }
        if depth == 1 {
            rootName = String(cString: localname)
            if let value = attributeValue(named: "locale", attributeCount, attributes) { locale = value }
            return
        }
        let batch = self.batch
        if depth == 2 { batch.beginElement(); openNodes.removeAll(keepingCapacity: true) }
        guard batch.openFootprint < ElementBatch.maximumBytes else {
            stop(with: XMLSyntaxError(line: currentLine, column: 0,
                                      message: "element larger than \(ElementBatch.maximumBytes >> 20) MiB"))
            return
        }
        let firstAttribute = Int32(batch.attributes.count)
        if let attributes {
            for i in 0..<attributeCount {
                let slot = attributes + i * 5  // localname, prefix, URI, value, end
                guard let attributeName = slot[0], let start = slot[3], let end = slot[4] else { continue }
                let value = batch.storeAttributeValue(ByteText(start: start, count: end - start))
                batch.attributes.append(.init(name: attributeNames.name(attributeName), interned: attributeName,
                                              valueStart: value.start, valueCount: value.count))
            }
        }
        if name == .unknown { batch.unknownNames[batch.nodes.count] = String(cString: localname) }
        let parent: Int32 = openNodes.last ?? -1
        openNodes.append(batch.nextNode)
        batch.appendNode(.init(name: name, parent: parent, firstAttribute: firstAttribute,
                               attributeCount: Int32(batch.attributes.count) - firstAttribute,
                               line: Int32(truncatingIfNeeded: currentLine)))
    }

    private func countUnknown(_ localname: UnsafePointer<xmlChar>) {
        let key = String(cString: localname)
        if unknownElements[key] != nil || unknownElements.count < Self.maximumUnknownNames {
            unknownElements[key, default: 0] += 1
        } else {
            unknownElements[Self.otherUnknownName, default: 0] += 1
        }
    }

    private func endElement() {
        defer { depth -= 1 }
        guard depth >= 2 else { return }
        openNodes.removeLast()
        guard depth == 2, pendingError == nil else { return }
        batch.endElement()
        do {
            let next = try handoff.completed(batch)
            if next !== batch { batch = next }
        } catch {
            stop(with: error)
        }
    }

    private func stop(with error: any Error) {
        if pendingError == nil { pendingError = error }
        xmlStopParser(context)
    }

    private func attributeValue(named wanted: StaticString, _ count: Int,
                                _ attributes: UnsafeMutablePointer<UnsafePointer<xmlChar>?>?) -> String? {
        guard let attributes else { return nil }
        for i in 0..<count {
            let slot = attributes + i * 5
            guard let name = slot[0], let start = slot[3], let end = slot[4] else { continue }
            if ByteText(start: name, count: strlen(name)).equals(wanted) {
                var value = ByteBuffer(capacity: end - start)
                ElementBatch.appendValue(ByteText(start: start, count: end - start), to: &value)
                return value.withBytes { $0.string }
            }
        }
        return nil
    }
}

@available(*, unavailable)
extension ExportParser: Sendable {}

extension String {
    func trimmingTrailingNewlines() -> String {
        var s = self
        while s.last?.isNewline == true { s.removeLast() }
        return s
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
