//! The relay between a program and its interactor: it copies each side's output to the other's
//! input, and records a bounded [`Transcript`] of what went where and when.
//!
//! The two boxes never share a pipe: each has its own pair, whose other ends the relay holds
//! (non-blocking, polled on one thread). So the judge sees every byte (the transcript, the
//! program's output limit) and each side's end reaches the other as it would through a direct
//! pipe:
//! - the interactor's output closing (it exited, or closed stdout) is passed on once what it
//!   wrote is delivered: the program reads end-of-file;
//! - the program's output closing is passed on only once the program has exited (its
//!   `program_exited` pipe closed), as problemtools' and BAPCtools' runners hold the pipe
//!   until the process ends: a program that closes its stdout and then crashes, spins or
//!   sleeps is judged by that (run-time error, time limit), not by an interactor that read
//!   end-of-file first;
//! - the interactor's input closing (it exited, or closed stdin) makes the relay read and drop
//!   the program's further output (still counted against its output limit): a program that
//!   writes after an accepting interactor has left does not get `SIGPIPE`, and is judged by
//!   the interactor's verdict and its own exit, as problemtools and BAPCtools judge it;
//!   whatever it had written and was not read is dropped and noted;
//! - the program's input closing (it exited, or closed stdin) makes the relay read and drop
//!   the interactor's output, up to [`DRAIN`] bytes, before it closes that pipe too: an
//!   interactor's last few writes to a program that left do not fail, so it reads the
//!   program's end and gives its verdict (a Python validator would otherwise exit 120 on its
//!   flush at exit: BAPCtools' relay drains without a bound); one that goes on writing gets
//!   `SIGPIPE` past the bound;
//! - at most [`BUFFER`] bytes wait in each direction: a side that floods a reader that does not
//!   read blocks on its full pipe, as it would on a direct one, and the judge's memory stays
//!   bounded;
//! - the program's bytes count against its output limit: past it the relay closes both of the
//!   program's pipes (its next write is `SIGPIPE`) and says so.

use super::transcript::{Direction, Transcript};
use nix::errno::Errno;
use nix::fcntl::{FcntlArg, OFlag, fcntl};
use nix::poll::{PollFd, PollFlags, PollTimeout, poll};
use std::os::fd::{AsFd, OwnedFd};
use std::time::Instant;

/// Bytes that may wait in the relay in each direction.
pub const BUFFER: usize = 64 * 1024;

/// Bytes of the interactor's output the relay still reads, and drops, once the program's
/// input is gone; past them the interactor's output pipe closes (`SIGPIPE`).
pub const DRAIN: u64 = 1024 * 1024;

/// The relay's ends of the four pipes, and the read end of its stop pipe (closing the write
/// end stops it).
#[derive(Debug)]
pub struct RelayEnds {
    /// Writes the program's stdin.
    pub to_program: OwnedFd,
    /// Reads the program's stdout.
    pub from_program: OwnedFd,
    /// Writes the interactor's stdin.
    pub to_interactor: OwnedFd,
    /// Reads the interactor's stdout.
    pub from_interactor: OwnedFd,
    /// Readable (end of file) when the relay must stop.
    pub stop: OwnedFd,
    /// Readable (end of file) once the program has exited (its run returned).
    pub program_exited: OwnedFd,
}

/// What the relay saw.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RelayReport {
    /// The exchange.
    pub transcript: Transcript,
    /// The program wrote more than its output limit to the interactor.
    pub output_capped: bool,
    /// The program went past its output limit after the interactor stopped reading (its
    /// further output drained).
    pub output_capped_after_interactor: bool,
    /// The program's output pipe was closed on it because the interactor stopped reading
    /// (exited or closed its stdin) with bytes of the program still undelivered.
    pub program_output_dropped: bool,
    /// When the relay first saw the program's end: its stdout closed and the program exited,
    /// or its stdin's reader gone.
    pub program_end: Option<std::time::Duration>,
    /// When the relay first saw the interactor's end, likewise.
    pub interactor_end: Option<std::time::Duration>,
}

impl RelayReport {
    /// Whether the interactor ended before the program, as the relay saw them: it passes
    /// every byte and every close between the two, so what one side does because the other
    /// ended always comes after that end. `None` when it saw neither end.
    pub fn interactor_first(&self) -> Option<bool> {
        match (self.interactor_end, self.program_end) {
            (Some(i), Some(p)) => Some(i < p),
            (Some(_), None) => Some(true),
            (None, Some(_)) => Some(false),
            (None, None) => None,
        }
    }

    /// Notes that `side` ended now (the first time only).
    fn ended(&mut self, writer_of: Direction, reader_gone: bool, at: std::time::Duration) {
        // A lane's writer is the side its bytes come from; its reader the other one.
        let program = matches!(
            (writer_of, reader_gone),
            (Direction::ToInteractor, false) | (Direction::ToProgram, true)
        );
        let slot = if program {
            &mut self.program_end
        } else {
            &mut self.interactor_end
        };
        slot.get_or_insert(at);
    }
}

/// One direction.
struct Lane {
    direction: Direction,
    from: Option<OwnedFd>,
    to: Option<OwnedFd>,
    buf: Vec<u8>,
    pos: usize,
    cap: Option<u64>,
    total: u64,
    /// Bytes still read and dropped after the lane's reader went away (`to` is `None`).
    drain: u64,
}

impl Lane {
    fn pending(&self) -> bool {
        self.pos < self.buf.len()
    }
}

/// The lane of the program's output (to the interactor).
const PROGRAM_LANE: usize = 1;

fn nonblocking(fd: &OwnedFd) -> std::io::Result<()> {
    let flags = OFlag::from_bits_truncate(fcntl(fd, FcntlArg::F_GETFL)?);
    fcntl(fd, FcntlArg::F_SETFL(flags | OFlag::O_NONBLOCK))?;
    Ok(())
}

/// Relays until every pipe is closed or the stop pipe is; `output_cap` bounds the program's
/// bytes.
pub fn relay(ends: RelayEnds, output_cap: Option<u64>) -> std::io::Result<RelayReport> {
    for fd in [
        &ends.to_program,
        &ends.from_program,
        &ends.to_interactor,
        &ends.from_interactor,
    ] {
        nonblocking(fd)?;
    }
    let start = Instant::now();
    let mut report = RelayReport::default();
    let mut lanes = [
        Lane {
            direction: Direction::ToProgram,
            from: Some(ends.from_interactor),
            to: Some(ends.to_program),
            buf: Vec::with_capacity(BUFFER),
            pos: 0,
            cap: None,
            total: 0,
            drain: DRAIN,
        },
        Lane {
            direction: Direction::ToInteractor,
            from: Some(ends.from_program),
            to: Some(ends.to_interactor),
            buf: Vec::with_capacity(BUFFER),
            pos: 0,
            cap: output_cap,
            total: 0,
            // The program's output is drained (and counted) for as long as it writes.
            drain: u64::MAX,
        },
    ];
    let stop = ends.stop;
    let mut program_exited = Some(ends.program_exited);
    // The program's stdout reached end-of-file before it exited: passed on at its exit.
    let mut program_eof_waits = false;
    let mut chunk = vec![0u8; BUFFER];
    loop {
        if lanes.iter().all(|l| l.from.is_none() && l.to.is_none()) {
            break;
        }
        // What to wait for: reads when a lane's buffer is empty, writes when it holds bytes;
        // a write end is always polled, for its reader going away (POLLERR).
        let mut wanted: Vec<(usize, bool)> = Vec::with_capacity(4);
        let mut fds = vec![PollFd::new(stop.as_fd(), PollFlags::POLLIN)];
        if let Some(exited) = &program_exited {
            fds.push(PollFd::new(exited.as_fd(), PollFlags::POLLIN));
        }
        let exit_polled = program_exited.is_some();
        let first_lane_fd = fds.len();
        for (i, lane) in lanes.iter().enumerate() {
            if let (Some(from), false) = (&lane.from, lane.pending()) {
                fds.push(PollFd::new(from.as_fd(), PollFlags::POLLIN));
                wanted.push((i, true));
            }
            if let Some(to) = &lane.to {
                let events = if lane.pending() {
                    PollFlags::POLLOUT
                } else {
                    PollFlags::empty()
                };
                fds.push(PollFd::new(to.as_fd(), events));
                wanted.push((i, false));
            }
        }
        match poll(&mut fds, PollTimeout::NONE) {
            Ok(_) => {}
            Err(Errno::EINTR) => continue,
            Err(e) => return Err(e.into()),
        }
        let ready: Vec<PollFlags> = fds
            .iter()
            .map(|f| f.revents().unwrap_or(PollFlags::empty()))
            .collect();
        drop(fds);
        if !ready[0].is_empty() {
            break;
        }
        if exit_polled && !ready[1].is_empty() {
            program_exited = None;
            let lane = &mut lanes[PROGRAM_LANE];
            if program_eof_waits {
                report.ended(lane.direction, false, start.elapsed());
                if !lane.pending() {
                    lane.to = None;
                }
            }
        }
        for (&(i, read), revents) in wanted.iter().zip(&ready[first_lane_fd..]) {
            if revents.is_empty() {
                continue;
            }
            let lane = &mut lanes[i];
            if read {
                let Some(from) = &lane.from else { continue };
                match nix::unistd::read(from, &mut chunk) {
                    Err(Errno::EAGAIN | Errno::EINTR) => {}
                    // End of file or a failed read: the lane's writer is gone.
                    Ok(0) | Err(_) => {
                        lane.from = None;
                        if i == PROGRAM_LANE && program_exited.is_some() {
                            program_eof_waits = true;
                            continue;
                        }
                        report.ended(lane.direction, false, start.elapsed());
                        if !lane.pending() {
                            lane.to = None;
                        }
                    }
                    Ok(n) if lane.to.is_none() => {
                        // Draining a writer whose reader left: dropped, up to the bound (the
                        // program's: its output limit).
                        lane.drain = lane.drain.saturating_sub(n as u64);
                        lane.total += n as u64;
                        if lane.cap.is_some_and(|cap| lane.total > cap) {
                            report.output_capped_after_interactor = true;
                            lane.from = None;
                        } else if lane.drain == 0 {
                            lane.from = None;
                        }
                    }
                    Ok(n) => {
                        report
                            .transcript
                            .record(lane.direction, start.elapsed(), &chunk[..n]);
                        lane.total += n as u64;
                        if lane.cap.is_some_and(|cap| lane.total > cap) {
                            report.output_capped = true;
                            lane.from = None;
                            lane.to = None;
                            lane.buf.clear();
                            lane.pos = 0;
                            continue;
                        }
                        lane.buf.clear();
                        lane.buf.extend_from_slice(&chunk[..n]);
                        lane.pos = 0;
                    }
                }
            } else {
                let Some(to) = &lane.to else { continue };
                let gone = if revents.contains(PollFlags::POLLERR) {
                    true
                } else if lane.pending() {
                    match nix::unistd::write(to, &lane.buf[lane.pos..]) {
                        Ok(n) => {
                            lane.pos += n;
                            false
                        }
                        Err(Errno::EAGAIN | Errno::EINTR) => false,
                        Err(_) => true,
                    }
                } else {
                    false
                };
                if gone {
                    report.ended(lane.direction, true, start.elapsed());
                    // The reader went away: what the writer had sent is dropped; the
                    // program's further output is drained, the interactor's pipe closes after
                    // DRAIN more bytes (SIGPIPE on its next write).
                    if lane.direction == Direction::ToInteractor && lane.pending() {
                        report.program_output_dropped = true;
                    }
                    lane.to = None;
                    if lane.drain == 0 {
                        lane.from = None;
                    }
                    lane.buf.clear();
                    lane.pos = 0;
                } else if !lane.pending()
                    && lane.from.is_none()
                    && (i != PROGRAM_LANE || program_exited.is_none())
                {
                    lane.to = None;
                }
            }
        }
    }
    Ok(report)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::{Read, Write};

    fn pipe() -> (OwnedFd, OwnedFd) {
        nix::unistd::pipe2(OFlag::O_CLOEXEC).expect("pipe")
    }

    /// A relay over fresh pipes on its own thread; returns the far ends (the program's stdin
    /// and stdout, the interactor's), the stop end and the program's exit end (dropped: the
    /// program has exited).
    fn start(
        cap: Option<u64>,
    ) -> (
        [OwnedFd; 4],
        (OwnedFd, OwnedFd),
        std::thread::JoinHandle<std::io::Result<RelayReport>>,
    ) {
        let (p_in_r, p_in_w) = pipe();
        let (p_out_r, p_out_w) = pipe();
        let (i_in_r, i_in_w) = pipe();
        let (i_out_r, i_out_w) = pipe();
        let (stop_r, stop_w) = pipe();
        let (exit_r, exit_w) = pipe();
        let ends = RelayEnds {
            to_program: p_in_w,
            from_program: p_out_r,
            to_interactor: i_in_w,
            from_interactor: i_out_r,
            stop: stop_r,
            program_exited: exit_r,
        };
        let handle = std::thread::spawn(move || relay(ends, cap));
        ([p_in_r, p_out_w, i_in_r, i_out_w], (stop_w, exit_w), handle)
    }

    /// Whether `fd` becomes readable (data or end-of-file) within 200 ms.
    fn readable_soon(fd: &std::fs::File) -> bool {
        let mut fds = [PollFd::new(fd.as_fd(), PollFlags::POLLIN)];
        poll(&mut fds, PollTimeout::from(200u16)).expect("poll") > 0
    }

    /// Writes 4 KiB chunks of `byte` to `to` until a write fails or `bound` bytes went; returns
    /// how many went.
    fn flood(to: &mut std::fs::File, byte: u8, bound: u64) -> u64 {
        let mut written = 0;
        while written < bound {
            match to.write(&[byte; 4096]) {
                Ok(n) => written += n as u64,
                Err(_) => break,
            }
        }
        written
    }

    #[test]
    fn bytes_cross_both_ways_and_an_exit_is_end_of_file_on_the_other_side() {
        let ([p_in, p_out, i_in, i_out], (_stop, exited), handle) = start(None);
        let (mut p_in, mut p_out) = (std::fs::File::from(p_in), std::fs::File::from(p_out));
        let (mut i_in, mut i_out) = (std::fs::File::from(i_in), std::fs::File::from(i_out));
        i_out.write_all(b"7\n").expect("interactor writes");
        let mut got = [0u8; 2];
        p_in.read_exact(&mut got).expect("program reads");
        assert_eq!(&got, b"7\n");
        p_out.write_all(b"8\n").expect("program writes");
        i_in.read_exact(&mut got).expect("interactor reads");
        assert_eq!(&got, b"8\n");
        // The program closes its stdout: the interactor reads nothing yet...
        drop(p_out);
        assert!(
            !readable_soon(&i_in),
            "end-of-file before the program exited"
        );
        // ...and end-of-file once it has exited.
        drop(exited);
        let mut rest = Vec::new();
        i_in.read_to_end(&mut rest).expect("eof");
        assert!(rest.is_empty());
        drop(i_out);
        p_in.read_to_end(&mut rest).expect("eof");
        drop((p_in, i_in));
        let report = handle.join().expect("thread").expect("relay");
        assert_eq!(report.transcript.messages, 2);
        assert_eq!(report.transcript.program_bytes, 2);
        assert!(!report.output_capped && !report.program_output_dropped);
    }

    #[test]
    fn a_program_writing_after_the_interactor_left_is_drained_not_cut_off() {
        let ([p_in, p_out, i_in, i_out], (_stop, exited), handle) = start(None);
        drop(i_in); // the interactor exits without reading
        let mut p_out = std::fs::File::from(p_out);
        for _ in 0..64 {
            p_out
                .write_all(&[b'x'; 4096])
                .expect("the program's writes go on once the interactor is gone");
        }
        drop((p_in, p_out, i_out, exited));
        let report = handle.join().expect("thread").expect("relay");
        assert_eq!(report.interactor_first(), Some(true));
        assert!(!report.output_capped && !report.output_capped_after_interactor);
    }

    #[test]
    fn an_interactor_writing_to_a_program_that_left_is_drained_then_cut_off() {
        let ([p_in, p_out, i_in, i_out], (_stop, exited), handle) = start(None);
        drop(p_in); // the program exits without reading
        let mut i_out = std::fs::File::from(i_out);
        // Its last words do not fail (the relay reads and drops them)...
        std::thread::sleep(std::time::Duration::from_millis(50));
        i_out
            .write_all(b"the hidden number was 7\n")
            .expect("drained");
        // ...but a flood is cut off past the bound.
        let written = flood(&mut i_out, b'z', 16 * DRAIN);
        assert!(written < 16 * DRAIN, "cut off past the drain bound");
        assert!(
            written + 32 >= DRAIN - 4096,
            "drained up to the bound: {written}"
        );
        drop((p_out, i_in, i_out, exited));
        let report = handle.join().expect("thread").expect("relay");
        assert_eq!(report.interactor_first(), Some(false));
    }

    #[test]
    fn a_program_flooding_after_the_interactor_left_is_cut_off_at_its_output_limit() {
        let ([p_in, p_out, i_in, i_out], (_stop, exited), handle) = start(Some(100_000));
        drop(i_in);
        let mut p_out = std::fs::File::from(p_out);
        let written = flood(&mut p_out, b'y', 1 << 20);
        assert!(written < 1 << 20, "cut off well before 1 MiB");
        drop((p_in, p_out, i_out, exited));
        let report = handle.join().expect("thread").expect("relay");
        assert!(report.output_capped_after_interactor && !report.output_capped);
    }

    #[test]
    fn the_program_past_its_output_limit_is_cut_off() {
        let ([p_in, p_out, i_in, i_out], (_stop, exited), handle) = start(Some(10_000));
        let mut p_out = std::fs::File::from(p_out);
        let mut i_in = std::fs::File::from(i_in);
        let reader = std::thread::spawn(move || {
            let mut sink = Vec::new();
            let _ = i_in.read_to_end(&mut sink);
            sink.len()
        });
        let written = flood(&mut p_out, b'y', 1 << 20);
        assert!(written < 1 << 20, "cut off well before 1 MiB");
        drop((p_in, p_out, i_out, exited));
        assert!(reader.join().expect("reader") <= 10_000);
        let report = handle.join().expect("thread").expect("relay");
        assert!(report.output_capped);
    }

    #[test]
    fn closing_the_stop_pipe_ends_a_relay_whose_sides_hang_on() {
        let (ends, (stop, _exited), handle) = start(None);
        drop(stop);
        handle.join().expect("thread").expect("relay");
        drop(ends);
    }
}
