public import CloudSyncModel
/// Collects what `cloudsync inspect` shows while an export streams through the converter:
/// counts per type, date range, sources and devices, unrecognised units, export facts.
/// Strings are only made when the type, source or device changes from the previous metric.
public final class ExportInspector: MetricSink, ConversionObserver {
    public private(set) var metricsByType: [String: Int] = [:]
    public private(set) var sources: [String: Int] = [:]
    public private(set) var devices: [String: Int] = [:]
    /// Units outside the table, by unit, with counts.
    public private(set) var unrecognisedUnits: [String: Int] = [:]
    public private(set) var invalidByType: [String: Int] = [:]
    public private(set) var firstStart: Int64?
    public private(set) var lastEnd: Int64?
    public private(set) var me: [String: String]?

    private var lastType = LastText()
    private var lastSource = LastText()
    private var lastDevice = LastText()

    public init() {}

    // MARK: MetricSink (the metrics themselves are not kept)

    public func write(_ metric: MappedMetric) throws {}
    public func finish() throws {}
    public func abandon() throws {}

    // MARK: ConversionObserver

    public func metric(_ metric: MappedMetric) {
        metricsByType[lastType.string(metric.type), default: 0] += 1
        sources[lastSource.string(metric.sourceApp), default: 0] += 1
        devices[lastDevice.string(metric.device), default: 0] += 1
        if !metric.unitRecognised {
            unrecognisedUnits[metric.writtenUnit.count == 0 ? "(none)" : metric.writtenUnit.string, default: 0] += 1
        }
        firstStart = Swift.min(firstStart ?? .max, metric.startDate)
        lastEnd = Swift.max(lastEnd ?? .min, metric.endDate)
    }

    public func invalid(_ tree: ElementTree, _ reason: InvalidRecordReason) {
        let type = tree.value(.type)?.string ?? tree.name(tree.root).xmlName
        invalidByType[type, default: 0] += 1
    }

    public func element(_ tree: ElementTree) {
        switch tree.name(tree.root) {
        case .me: me = tree.attributeDictionary(tree.root)
        default: break
        }
    }

    /// The report, given the conversion's own.
    public func report(_ conversion: ConversionReport) -> InspectReport {
        let dtd = InspectReport.DTD(present: conversion.hadDoctype, broken: !conversion.dtdDefects.isEmpty, defects: conversion.dtdDefects)
        var report = InspectReport(
            input: conversion.input, entry: conversion.entry,
            exportVersion: conversion.exportVersion, locale: conversion.locale, exportDate: conversion.exportDate,
            xmlBytes: conversion.xmlBytes,
            elements: conversion.elementCounts, metrics: conversion.metrics, metricsByType: metricsByType,
            firstStart: firstStart.map { UTCDateFormatter.string($0) }, lastEnd: lastEnd.map { UTCDateFormatter.string($0) },
            sources: sources, devices: devices, unrecognisedUnits: unrecognisedUnits,
            invalidRecords: conversion.invalid, invalidByType: invalidByType, dtd: dtd,
            controlCharactersReplaced: conversion.controlCharactersReplaced)
        report.samplesAfterExport = conversion.samplesAfterExport
        report.attributeNamesRepaired = conversion.attributeNamesRepaired
        report.me = me
        return report
    }
}

/// Keeps the `String` of the last bytes seen, to make one only when they change.
struct LastText {
    private var bytes: [UInt8] = []
    private var cached = ""
    private var valid = false

    mutating func string(_ text: ByteText) -> String {
        if valid, bytes.withUnsafeBufferPointer({ $0.equals(text) }) { return cached }
        bytes = Array(text)
        cached = text.string
        valid = true
        return cached
    }
}
