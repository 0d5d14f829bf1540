import CloudSyncModel

/// The parts of a Record's or Workout's mapping that need nothing but the element's own bytes, its
/// dates in seconds, its `value` as a number and where its device's name lies, worked out on the
/// parser thread as the element completes.
///
/// Why there: in an import the mapping thread also does SQLite's inserts and is the critical path,
/// while the parser thread waits for it part of the time (perf, 1 GB import: 710–910 against
/// 380–710 samples a second out of 999). Dates and the device name were about 7% of the mapping
/// thread's samples, and the value's number about 2% (`epochSeconds`, `DeviceName.name`,
/// `DecimalParser.parse`), docs/performance.md "Issue 34, third round".
struct PreparedFields {
    /// Whether the fields were worked out (the element is a Record or a Workout).
    let isPrepared: Bool
    /// Seconds since 1970 UTC; `unparsable` when the attribute is absent or not a date.
    let start: Int64
    let end: Int64
    let created: Int64
    /// The `value` attribute as `DecimalParser` reads it (`valueState`: absent or not a number,
    /// a number, a number already in its JSON form).
    let value: Double
    let valueState: ValueState
    /// The device's name in the element's bytes (offset from the batch's bytes), -1 when the
    /// attribute is absent or has no `name:` field.
    let deviceOffset: Int32
    let deviceCount: Int32

    enum ValueState: UInt8 { case none, number, canonicalNumber }

    static let unparsable = Int64.min
    static let none = PreparedFields()

    private init() {
        isPrepared = false
        start = Self.unparsable
        end = Self.unparsable
        created = Self.unparsable
        value = 0
        valueState = .none
        deviceOffset = -1
        deviceCount = 0
    }

    /// `previous`: the start date of the element prepared before this one (of its batch), by which
    /// this one's start is read when it was written on the same day with the same offset.
    init(_ tree: ElementTree, previous: inout PreviousStart) {
        let root = tree.name(tree.root)
        guard root == .record || root == .workout else {
            self = .none
            return
        }
        isPrepared = true
        let startText = tree.value(.startDate)
        let start = startText.flatMap { previous.read($0) }
        // The other two dates are read as the start's day when they are (`sameDayAs`).
        func date(_ text: ByteText?) -> Int64? {
            guard let text else { return nil }
            guard let startText, let start else { return ExportDateParser.epochSeconds(text) }
            return ExportDateParser.epochSeconds(text, sameDayAs: startText, at: start)
        }
        self.start = start ?? Self.unparsable
        end = date(tree.value(.endDate)) ?? Self.unparsable
        created = date(tree.value(.creationDate)) ?? Self.unparsable
        if let parsed = tree.value(.value).flatMap(DecimalParser.parse) {
            value = parsed.value
            valueState = parsed.isCanonicalJSON ? .canonicalNumber : .number
        } else {
            value = 0
            valueState = .none
        }
        if let name = tree.value(.device).flatMap(DeviceName.name(in:)), let base = name.baseAddress {
            deviceOffset = Int32(base - tree.bytes)
            deviceCount = Int32(name.count)
        } else {
            deviceOffset = -1
            deviceCount = 0
        }
    }
}

/// The last start date read and its seconds. A type's Records come in time order, most of them on
/// the day of the one before: their starts are read for their time of day alone
/// (`ExportDateParser.epochSeconds(_:sameDayAs:at:)`, which reads any other date whole).
struct PreviousStart {
    /// The date's bytes (export.xml writes 25: `2024-10-25 07:05:11 -0500`), at most 32.
    private var bytes: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)
    private var count = 0
    private var seconds: Int64 = 0

    mutating func read(_ text: ByteText) -> Int64? {
        let seconds: Int64?
        if count > 0, count == text.count {
            let reference = self.seconds
            seconds = withUnsafeBytes(of: &bytes) { stored in
                ExportDateParser.epochSeconds(text, sameDayAs: ByteText(start: stored.baseAddress!.assumingMemoryBound(to: UInt8.self), count: text.count),
                                              at: reference)
            }
        } else {
            seconds = ExportDateParser.epochSeconds(text)
        }
        guard let seconds, text.count <= MemoryLayout.size(ofValue: bytes), let base = text.baseAddress else {
            count = 0
            return seconds
        }
        withUnsafeMutableBytes(of: &bytes) { stored in stored.copyMemory(from: UnsafeRawBufferPointer(start: base, count: text.count)) }
        count = text.count
        self.seconds = seconds
        return seconds
    }
}

extension ElementTree {
    /// The element's dates in seconds, as `ExportDateParser.epochSeconds` reads its attributes.
    var dates: (start: Int64?, end: Int64?) {
        let prepared = self.prepared
        guard prepared.isPrepared else {
            return (value(.startDate).flatMap(ExportDateParser.epochSeconds), value(.endDate).flatMap(ExportDateParser.epochSeconds))
        }
        return (prepared.start == PreparedFields.unparsable ? nil : prepared.start,
                prepared.end == PreparedFields.unparsable ? nil : prepared.end)
    }

    /// The element's `creationDate` in seconds, when it has one that parses.
    var creationSeconds: Int64? {
        let prepared = self.prepared
        guard prepared.isPrepared else { return value(.creationDate).flatMap(ExportDateParser.epochSeconds) }
        return prepared.created == PreparedFields.unparsable ? nil : prepared.created
    }

    /// The element's `value` attribute as a number, as `DecimalParser.parse` reads it.
    var parsedValue: DecimalParser.Result? {
        let prepared = self.prepared
        guard prepared.isPrepared else { return value(.value).flatMap(DecimalParser.parse) }
        switch prepared.valueState {
        case .none: return nil
        case .number: return DecimalParser.Result(value: prepared.value, isCanonicalJSON: false)
        case .canonicalNumber: return DecimalParser.Result(value: prepared.value, isCanonicalJSON: true)
        }
    }

    /// The `name:` field of the element's `device` attribute, as `DeviceName.name(in:)` reads it.
    var deviceName: ByteText? {
        let prepared = self.prepared
        guard prepared.isPrepared else { return value(.device).flatMap(DeviceName.name(in:)) }
        guard prepared.deviceOffset >= 0 else { return nil }
        return ByteText(start: bytes + Int(prepared.deviceOffset), count: Int(prepared.deviceCount))
    }
}
