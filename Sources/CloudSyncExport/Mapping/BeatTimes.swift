package import CloudSyncModel
import Foundation

/// The beat-to-beat list of an HRV record as instants.
///
/// Apple writes each beat's time of day in the phone's locale format (`7:44:15.57 PM`,
/// `00:20:37,80`), with no date and no offset, in the wall-clock time of when the beats were taken.
/// That offset can differ from the one the export wrote the record's `startDate` with: an export made
/// in summer writes a January record `01:20:29 +0200` while its beats read `00:20:37` (+0100). So the
/// first beat is placed just after the record's start, allowing the difference between the two
/// offsets to be any whole number of quarter hours; each next beat follows the one before by the
/// difference of their times of day, and a list that crosses midnight goes on into the next day.
package enum BeatTimes {
    /// The series of an HRV `Record` element, and how many beats were skipped because their time
    /// or bpm does not parse; nil for a record without a beat list. Read from the element's bytes.
    package static func series(_ tree: ElementTree) -> (series: BeatSeries, skipped: Int)? {
        guard let startText = tree.value(.startDate), let start = ExportDateParser.epochSeconds(startText),
              let offset = ExportDateParser.writtenOffsetSeconds(startText) else { return nil }
        let startOfDay = Double(((start + offset) % 86_400 + 86_400) % 86_400)
        var beats: [Beat] = []
        var skipped = 0
        var previous: (timeOfDay: Double, instant: Double)?
        for node in tree.nodes.indices where tree.nodes[node].name == .instantaneousBeatsPerMinute {
            guard let time = tree.value(.time, of: node), let timeOfDay = LocaleTimeParser.secondsSinceMidnight(time),
                  let bpmText = tree.value(.bpm, of: node), let bpm = DecimalParser.parse(bpmText)?.value,
                  bpm.isFinite, bpm >= 0, bpm < 1000 else { skipped += 1; continue }
            let instant: Double
            if let previous {
                var step = timeOfDay - previous.timeOfDay
                if step < -43_200 { step += 86_400 }   // past midnight
                instant = previous.instant + step
            } else {
                var difference = timeOfDay - startOfDay
                if difference <= -43_200 { difference += 86_400 }
                if difference > 43_200 { difference -= 86_400 }
                // What is left after whole quarter hours is how long after the start the beat came.
                let offsets = (difference / 900).rounded() * 900
                instant = Double(start) + difference - offsets
            }
            previous = (timeOfDay, instant)
            beats.append(Beat(time: Int64((instant * 1000).rounded()), bpm: Int(bpm)))
        }
        guard !beats.isEmpty || skipped > 0 else { return nil }
        let end = tree.value(.endDate).flatMap { ExportDateParser.epochSeconds($0) } ?? start
        let value = tree.value(.value).flatMap { DecimalParser.parse($0)?.value }
        return (BeatSeries(type: tree.value(.type)?.string ?? "", startDate: start, endDate: end,
                           sourceApp: (tree.value(.sourceName) ?? tree.value(.source))?.string ?? "", value: value, beats: beats), skipped)
    }

}
