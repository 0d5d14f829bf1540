import CloudSyncModel
/// Reads one export from start to end: opens the input (file, zip, stdin), runs the reader thread
/// and the libxml2 parser, and hands each top-level element to `consumer`. Errors come out as
/// `ConversionError`s that name the input and the place.
public struct ExportStream {
    /// Facts gathered on the way, available after `run` (also when it throws).
    public struct Facts: Sendable {
        public var source = ExportBytesInfo(inputName: "")
        public var locale: String?
        public var rootName: String?
        public var doctype: DoctypeReport?
        public var hadDoctype = false
        public var controlCharactersReplaced = 0
        /// Spaces inside attribute names (iOS 8 metadata keys) escaped for the parser.
        public var attributeNamesRepaired = 0
        public var xmlBytes: Int64 = 0
        /// Elements seen, nested ones included, by name.
        public var elementCounts: [String: Int] = [:]
    }

    public let input: ExportInput
    public private(set) var facts = Facts()
    /// Asked while a pipe or terminal gives no bytes (and between reads), so that a signal stops a
    /// run that waits on a stalled standard input: it then throws `ConversionError.interrupted`.
    public var shouldStop: @Sendable () -> Bool = { false }
    /// Bytes parsed so far, and the total when known (for percent and ETA).
    public let progress = ReadProgress()
    /// For a zip from a pipe: the other entries to read as they stream past (routes, ECGs).
    var streamed: DecodedEntries?

    public init(input: ExportInput) {
        self.input = input
        facts.source.inputName = input.name
    }

    public init(inputPath: String) { self.init(input: ExportInput(path: inputPath)) }

    /// Calls `consumer` with each top-level element, in order, on a thread of its own (so that
    /// mapping and writing run beside the parse). Returns after the last call.
    public mutating func run(_ consumer: any ExportElementConsumer) throws {
        let source = try ExportInputs.open(input, shouldStop: shouldStop, streamed: streamed)
        progress.expect(source.info.expectedBytes)
        consumer.begin(expectedBytes: source.info.expectedBytes)
        let stage = MappingStage(consumer: consumer)
        let parser = ExportParser(handoff: stage)
        let pipeline = ChunkPipeline(source: source)
        var parsed: Int64 = 0
        defer { collect(source, parser, pipeline, parsed) }
        stage.start()
        do {
            do {
                try pipeline.run { chunk in
                    parsed += Int64(chunk.count)
                    progress.add(chunk.count)
                    try parser.parse(chunk)
                }
                try parser.finish()
            } catch {
                // Every element completed before the damage still reaches the consumer; an error
                // of the consumer itself (a full disk, an interrupt) is the one to report.
                try stage.finish()
                throw error
            }
            try stage.finish()
        } catch let syntax as XMLSyntaxError {
            if let damage = source.containerDamage() { throw damage }
            if parser.rootName == nil {
                throw ConversionError.notAnExport(source.info.inputName, "not XML (\(syntax.message) at line \(syntax.line))")
            }
            throw ConversionError.malformedXML(source.info.inputName, entry: source.info.entryName, syntax)
        }
        guard let root = parser.rootName else {
            throw ConversionError.notAnExport(source.info.inputName, "no XML element in it")
        }
        guard root == "HealthData" else {
            throw ConversionError.notAnExport(source.info.inputName, "its root element is <\(root)>, not <HealthData>")
        }
    }

    private mutating func collect(_ source: any ExportBytes, _ parser: ExportParser, _ pipeline: ChunkPipeline, _ parsed: Int64) {
        facts.source = source.info
        facts.locale = parser.locale
        facts.rootName = parser.rootName
        facts.xmlBytes = parsed
        let statistics = pipeline.statistics
        facts.hadDoctype = statistics.sawDoctype
        facts.doctype = statistics.doctype
        facts.controlCharactersReplaced = statistics.controlCharactersReplaced
        facts.attributeNamesRepaired = statistics.attributeNamesRepaired
        var counts: [String: Int] = parser.unknownElements
        for name in ElementName.allCases where name != .unknown && parser.elementCounts[Int(name.rawValue)] > 0 {
            counts[name.xmlName] = parser.elementCounts[Int(name.rawValue)]
        }
        facts.elementCounts = counts
    }
}
