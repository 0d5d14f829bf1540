import CloudSyncModel
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
enum BeatTimes {
    /// The series, and how many beats were skipped because their time or bpm does not parse; nil
    /// for a record without a beat list.
    static func series(_ record: Record) -> (series: BeatSeries, skipped: Int)? {
        guard !record.beats.isEmpty, let startText = record.attributes["startDate"], let start = record.startDate,
              let offset = writtenOffset(startText) else { return nil }
        let startOfDay = Double(((start + offset) % 86_400 + 86_400) % 86_400)
        var beats: [Beat] = []
        beats.reserveCapacity(record.beats.count)
        var skipped = 0
        var previous: (timeOfDay: Double, instant: Double)?
        for beat in record.beats {
            guard let timeOfDay = beat.secondsSinceMidnight, let bpm = beat.bpm else { skipped += 1; continue }
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
            beats.append(Beat(time: Int64((instant * 1000).rounded()), bpm: bpm))
        }
        return (BeatSeries(type: record.type, startDate: start, endDate: record.endDate ?? start,
                           sourceApp: record.sourceName ?? "", value: record.value.flatMap(Double.init), beats: beats), skipped)
    }

    /// The offset in seconds of `2023-05-13 07:20:00 +0200`.
    static func writtenOffset(_ text: String) -> Int64? {
        let bytes = Array(text.utf8)
        guard bytes.count >= 25, bytes[20] == UInt8(ascii: "+") || bytes[20] == UInt8(ascii: "-"),
              let hours = Int64(String(decoding: bytes[21..<23], as: UTF8.self)),
              let minutes = Int64(String(decoding: bytes[23..<25], as: UTF8.self)) else { return nil }
        return (bytes[20] == UInt8(ascii: "-") ? -1 : 1) * (hours * 3600 + minutes * 60)
    }
}
