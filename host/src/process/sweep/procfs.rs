//! Reading one process's state and environment from `/proc` (Linux) while
//! it may be changing under the reader.
//!
//! Two reads can be torn by an `execve`: the environment file is bound to
//! the memory the process had when it was opened, and a read split over
//! several calls can end early when that memory goes away. So the
//! environment is read in one call into a buffer large enough for it, and
//! an empty answer is checked against the process's stat read afterwards: a
//! process inside `execve` (its new memory in place, its environment not
//! yet laid out) reads empty for a moment, and is reported as such rather
//! than as unmarked.

use std::io::Read;

/// How one process relates to an extension's tree.
#[derive(Debug, PartialEq, Eq)]
pub enum Membership {
    /// Alive, and in the group or marked.
    Member,
    /// Not one of them (or dead, or not ours to read).
    Stranger,
    /// Its environment could not be told yet: it is (or may be) inside
    /// `execve`. Look again shortly.
    Unsettled,
}

/// Whether `pid` is alive and in group `pgid` or carries `needle`
/// (`NAME=value`) in its environment.
pub fn membership(pid: i32, pgid: Option<i32>, needle: &[u8]) -> Membership {
    let Some(st) = stat(pid) else {
        return Membership::Stranger;
    };
    if st.dead() {
        return Membership::Stranger;
    }
    if Some(st.pgrp) == pgid {
        return Membership::Member;
    }
    let mut size_hint = st.environment_size();
    // An exec finishing between the read and the stat: read again, once.
    for _ in 0..2 {
        let Some(env) = environment(pid, size_hint) else {
            return Membership::Stranger; // gone, or not ours to read
        };
        if env.split(|b| *b == 0).any(|kv| kv == needle) {
            return Membership::Member;
        }
        if !env.is_empty() {
            return Membership::Stranger;
        }
        let Some(after) = stat(pid) else {
            return Membership::Stranger;
        };
        if after.dead() || after.kernel_thread() || after.env.is_none() {
            return Membership::Stranger;
        }
        if after.environment_size() == 0 {
            // Inside `execve`, or a process started with no environment.
            return Membership::Unsettled;
        }
        size_hint = after.environment_size();
    }
    Membership::Unsettled
}

/// The fields of `/proc/<pid>/stat` the sweep reads (proc(5)).
#[derive(Debug)]
pub struct Stat {
    pub state: char,
    pub pgrp: i32,
    flags: u64,
    /// Where its environment starts and ends in its memory: both 0 inside
    /// `execve` (before its memory is laid out) and for kernel threads,
    /// equal while `execve` lays it out and when it has none; `None` on
    /// kernels before 3.5.
    env: Option<(u64, u64)>,
}

/// `PF_KTHREAD` in the flags field.
const KERNEL_THREAD: u64 = 0x0020_0000;

impl Stat {
    pub fn dead(&self) -> bool {
        matches!(self.state, 'Z' | 'X' | 'x')
    }

    pub fn kernel_thread(&self) -> bool {
        self.flags & KERNEL_THREAD != 0
    }

    /// Bytes of environment it shows now (0 when none is laid out).
    pub fn environment_size(&self) -> usize {
        self.env
            .map_or(0, |(start, end)| end.saturating_sub(start) as usize)
    }
}

pub fn stat(pid: i32) -> Option<Stat> {
    parse_stat(&std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?)
}

/// Fields numbered as in proc(5), counted after the command name, which
/// sits in parentheses and may itself hold spaces and parentheses: state
/// is field 3, pgrp 5, flags 9, env_start 50, env_end 51.
fn parse_stat(text: &str) -> Option<Stat> {
    let rest = &text[text.rfind(')')? + 1..];
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let number = |n: usize| fields.get(n - 3).and_then(|f| f.parse::<u64>().ok());
    Some(Stat {
        state: fields.first()?.chars().next()?,
        pgrp: fields.get(2)?.parse().ok()?,
        flags: number(9)?,
        env: number(50).zip(number(51)),
    })
}

/// The environment block of `pid`, read in one call so that it all comes
/// from the same memory (`None` when it cannot be read). `size_hint` is
/// its size as last seen; a block that fills the buffer may have grown
/// (an exec since) and is read again into a larger one.
fn environment(pid: i32, size_hint: usize) -> Option<Vec<u8>> {
    let mut room = size_hint.max(4096) + 4096;
    for _ in 0..4 {
        let mut file = std::fs::File::open(format!("/proc/{pid}/environ")).ok()?;
        let mut buf = vec![0; room];
        let n = loop {
            match file.read(&mut buf) {
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                other => break other.ok()?,
            }
        };
        if n < room {
            buf.truncate(n);
            return Some(buf);
        }
        room *= 4;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_live_process_reads_as_such() {
        let st = stat(std::process::id() as i32).expect("our own stat");
        assert_eq!(st.pgrp, rustix::process::getpgrp().as_raw_nonzero().get());
        assert!(!st.dead() && !st.kernel_thread());
        assert!(st.environment_size() > 0);
    }

    #[test]
    fn the_command_name_may_hold_parentheses_and_spaces() {
        // Fields 3 to 51 after the name.
        let mut fields = vec!["0"; 49];
        fields[0] = "S";
        fields[2] = "7";
        fields[6] = "2097152";
        fields[47] = "100";
        fields[48] = "160";
        let text = format!("7 (a) b (c) {}", fields.join(" "));
        let st = parse_stat(&text).expect("parsed");
        assert_eq!((st.state, st.pgrp), ('S', 7));
        assert!(st.kernel_thread());
        assert_eq!(st.environment_size(), 60);
    }
}
