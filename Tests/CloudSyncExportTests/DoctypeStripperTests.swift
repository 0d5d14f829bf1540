import Foundation
import CloudSyncExport
import CloudSyncModel
import Testing

@Suite struct DoctypeStripperTests {
    static let prolog = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
    static let soundDTD = """
        <!DOCTYPE HealthData [
        <!-- HealthKit Export Version: 13 -->
        <!ELEMENT HealthData (ExportDate,Me,(Record|Correlation|Workout|ActivitySummary|ClinicalRecord)*)>
        <!ATTLIST HealthData
          locale CDATA #REQUIRED
        >
        <!ATTLIST Record
          type CDATA #REQUIRED
          unit CDATA "<HealthDataX>"
        >
        ]>

        """
    /// iOS 16 defect 1: the last ATTLIST lost its closing `>`.
    static let unclosedAttlist = soundDTD.replacingOccurrences(of: "\"<HealthDataX>\"\n>\n]>", with: "\"<HealthDataX>\"\n]>")
    /// iOS 16 defect 2: a stray `>` line before `]>`.
    static let strayGreaterThan = soundDTD.replacingOccurrences(of: ">\n]>", with: ">\n>\n]>")
    static let body = "<HealthData locale=\"en_US\">\n <Record type=\"A\" value=\"<\"/>\n</HealthData>\n"

    /// The stripper's output for `input` cut into chunks at `cuts`.
    func strip(_ input: [UInt8], cuts: [Int]) -> (output: [UInt8], stripper: DoctypeStripper) {
        var stripper = DoctypeStripper()
        var output: [UInt8] = []
        var start = 0
        for cut in cuts + [input.count] {
            input[start..<cut].withUnsafeBufferPointer { chunk in stripper.process(chunk) { output.append(contentsOf: $0) } }
            start = cut
        }
        stripper.finish { output.append(contentsOf: $0) }
        return (output, stripper)
    }

    func expected(_ dtd: String) -> [UInt8] {
        let newlines = dtd.filter { $0 == "\n" }.count
        return Array((Self.prolog + String(repeating: "\n", count: newlines) + Self.body).utf8)
    }

    @Test(arguments: [soundDTD, unclosedAttlist, strayGreaterThan])
    func removesTheDTDWhereverTheChunksSplit(_ dtd: String) {
        let input = Array((Self.prolog + dtd + Self.body).utf8)
        let want = expected(dtd)
        #expect(want.count < input.count)
        for cut in 0...input.count {
            let (output, stripper) = strip(input, cuts: [cut])
            #expect(output == want, "split at \(cut)")
            #expect(stripper.sawDoctype)
        }
        // Three pieces, at every pair of positions around the two markers.
        let doctypeAt = Self.prolog.utf8.count, rootAt = Self.prolog.utf8.count + dtd.utf8.count
        for a in (doctypeAt - 2)...(doctypeAt + 11) {
            for b in (rootAt - 2)...(rootAt + 13) {
                #expect(strip(input, cuts: [a, b]).output == want, "splits at \(a), \(b)")
            }
        }
        // One byte at a time.
        #expect(strip(input, cuts: Array(1..<input.count)).output == want)
    }

    /// Markup inside a processing instruction or a comment before the DOCTYPE is not the root: the
    /// DOCTYPE after them is still removed (the fuzzer got a DTD through to libxml2 this way).
    @Test func skipsProcessingInstructionsAndCommentsBeforeTheDTD() {
        let before = "<?pi <Record type=\"x\"/> <!DOCTYPE fake [ ?>\n<!-- <HealthData> <!DOCTYPE fake -->\n"
        let input = Array((Self.prolog + before + Self.unclosedAttlist + Self.body).utf8)
        let newlines = Self.unclosedAttlist.filter { $0 == "\n" }.count
        let want = Array((Self.prolog + before + String(repeating: "\n", count: newlines) + Self.body).utf8)
        for cut in 0...input.count {
            let (output, stripper) = strip(input, cuts: [cut])
            #expect(output == want, "split at \(cut)")
            #expect(stripper.sawDoctype)
        }
        #expect(strip(input, cuts: Array(1..<input.count)).output == want)
    }

    @Test func keepsLineNumbers() {
        let input = Array((Self.prolog + Self.soundDTD + Self.body).utf8)
        let output = strip(input, cuts: []).output
        let lineOfRoot = { (bytes: [UInt8]) in bytes.prefix(while: { $0 != UInt8(ascii: "<") || true }).count }
        _ = lineOfRoot
        let before = input.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).firstIndex { $0.starts(with: Array("<HealthData ".utf8)) }
        let after = output.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).firstIndex { $0.starts(with: Array("<HealthData ".utf8)) }
        #expect(before != nil && before == after)
    }

    @Test func passesThroughAnExportWithoutDTD() {
        let input = Array((Self.prolog + Self.body).utf8)
        for cut in 0...input.count {
            let (output, stripper) = strip(input, cuts: [cut])
            #expect(output == input)
            #expect(!stripper.sawDoctype)
        }
    }

    @Test func removesAnExternalDTDReference() {
        let input = Array((Self.prolog + "<!DOCTYPE HealthData SYSTEM \"file:///etc/passwd\">\n" + Self.body).utf8)
        #expect(strip(input, cuts: [50]).output == Array((Self.prolog + "\n" + Self.body).utf8))
    }

    @Test func reportsVersionAndDefects() {
        func report(_ dtd: String) -> DoctypeReport {
            let input = Array((Self.prolog + dtd + Self.body).utf8)
            return DoctypeReport(doctypeText: strip(input, cuts: []).stripper.doctypeText)
        }
        #expect(report(Self.soundDTD).exportVersion == 13)
        #expect(report(Self.soundDTD).defects.isEmpty)
        #expect(report(Self.unclosedAttlist).defects == ["a declaration without its closing '>'"])
        #expect(report(Self.strayGreaterThan).defects == ["a stray '>' between declarations"])
    }
}
