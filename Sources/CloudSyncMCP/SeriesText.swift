import CloudSyncModel
import CloudSyncStore

/// The text of a `series` answer. Its buckets, listed in full up to `TextList.listedInFull`; past
/// that, a summary of them all (total or average, lowest and highest bucket) comes first, so that
/// an assistant reading only the text still answers about the whole range.
enum SeriesText {
    static func render(_ series: HealthTools.Series, bucket: AggregateBucket) -> String {
        let buckets = series.buckets
        var text = "\(series.type): \(series.statistic) per \(bucket.rawValue) (\(series.unit)), \(counted(buckets.count, "bucket"))"
        if let first = buckets.first, let last = buckets.last { text += " from \(first.label) to \(last.label)" }
        if buckets.count > TextList.listedInFull { text += "\n" + summary(series) }
        text += TextList.lines(buckets, noun: "bucket") { "\($0.label): \(Readable.text(series.readable($0.value)))" }
        return text
    }

    /// Over every bucket: the total (sums) or the average of every sample (averages), the mean per
    /// bucket, and the lowest and highest bucket.
    static func summary(_ series: HealthTools.Series) -> String {
        let buckets = series.buckets
        guard let lowest = buckets.min(by: { $0.value < $1.value }), let highest = buckets.max(by: { $0.value < $1.value }) else { return "" }
        let samples = buckets.map(\.count).reduce(0, +)
        var text: String
        if series.statistic == "sum" {
            let total = buckets.map(\.value).reduce(0, +)
            text = "total \(Readable.text(series.readable(total))), \(Readable.text(total / Double(buckets.count))) per bucket on average"
        } else {
            let average = buckets.map { $0.value * Double($0.count) }.reduce(0, +) / Double(max(samples, 1))
            text = "average \(Readable.text(average)) over \(counted(samples, "sample"))"
        }
        text += "; lowest \(lowest.label) (\(Readable.text(series.readable(lowest.value))))"
        text += ", highest \(highest.label) (\(Readable.text(series.readable(highest.value))))"
        return text
    }
}
