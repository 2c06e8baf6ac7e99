//! `additional_files`: a zip archive whose files Judge0 extracts beside the program
//! (`unzip -n` in the box, at most `MAX_EXTRACT_SIZE`). Read here from its central directory,
//! stored and deflated members only; a member that escapes the box, is encrypted or passes
//! the size bound is skipped, and an archive that is not a zip gives no files, as Judge0's
//! unzip then leaves the box as it was.

use crate::program::is_box_path;
use std::io::Read;

fn u16_at(data: &[u8], at: usize) -> Option<usize> {
    let bytes = data.get(at..at + 2)?;
    Some(usize::from(u16::from_le_bytes([bytes[0], bytes[1]])))
}

fn u32_at(data: &[u8], at: usize) -> Option<usize> {
    let bytes = data.get(at..at + 4)?;
    usize::try_from(u32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]])).ok()
}

/// The files of `archive` (relative paths inside the box, directories left out), at most
/// `max_bytes` together.
pub fn extract(archive: &[u8], max_bytes: u64) -> Vec<(String, Vec<u8>)> {
    let mut files = Vec::new();
    let Some(end) = (0..archive.len().saturating_sub(21))
        .rev()
        .find(|&i| archive[i..].starts_with(b"PK\x05\x06"))
    else {
        return files;
    };
    let (Some(count), Some(mut at)) = (u16_at(archive, end + 10), u32_at(archive, end + 16)) else {
        return files;
    };
    let mut total: u64 = 0;
    for _ in 0..count {
        if !archive
            .get(at..)
            .is_some_and(|d| d.starts_with(b"PK\x01\x02"))
        {
            break;
        }
        let (Some(flags), Some(method), Some(size), Some(name_len), Some(extra_len)) = (
            u16_at(archive, at + 8),
            u16_at(archive, at + 10),
            u32_at(archive, at + 24),
            u16_at(archive, at + 28),
            u16_at(archive, at + 30),
        ) else {
            break;
        };
        let (Some(comment_len), Some(local)) = (u16_at(archive, at + 32), u32_at(archive, at + 42))
        else {
            break;
        };
        let compressed = u32_at(archive, at + 20).unwrap_or(0);
        let name = archive
            .get(at + 46..at + 46 + name_len)
            .map(|n| String::from_utf8_lossy(n).into_owned());
        at += 46 + name_len + extra_len + comment_len;
        let Some(name) = name else { break };
        total = total.saturating_add(size as u64);
        if name.ends_with('/') || flags & 1 == 1 || !is_box_path(&name) || total > max_bytes {
            continue;
        }
        let (Some(local_name), Some(local_extra)) =
            (u16_at(archive, local + 26), u16_at(archive, local + 28))
        else {
            continue;
        };
        let start = local + 30 + local_name + local_extra;
        let Some(data) = archive.get(start..start.saturating_add(compressed)) else {
            continue;
        };
        let bytes = match method {
            0 => data.to_vec(),
            8 => {
                let mut out = Vec::with_capacity(size);
                let reader = flate2::read::DeflateDecoder::new(data);
                if reader.take(size as u64).read_to_end(&mut out).is_err() {
                    continue;
                }
                out
            }
            _ => continue,
        };
        if files.iter().all(|(n, _)| *n != name) {
            files.push((name, bytes));
        }
    }
    files
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A zip of `files`, stored (method 0), as `zip -0` writes one.
    pub(crate) fn stored_zip(files: &[(&str, &[u8])]) -> Vec<u8> {
        let mut out = Vec::new();
        let mut central = Vec::new();
        for (name, data) in files {
            let offset = out.len() as u32;
            let crc = crc32(data);
            let header = |sig: &[u8], central: bool| {
                let mut h = sig.to_vec();
                if central {
                    h.extend_from_slice(&20u16.to_le_bytes());
                }
                h.extend_from_slice(&20u16.to_le_bytes());
                h.extend_from_slice(&0u16.to_le_bytes());
                h.extend_from_slice(&0u16.to_le_bytes());
                h.extend_from_slice(&0u32.to_le_bytes());
                h.extend_from_slice(&crc.to_le_bytes());
                h.extend_from_slice(&(data.len() as u32).to_le_bytes());
                h.extend_from_slice(&(data.len() as u32).to_le_bytes());
                h.extend_from_slice(&(name.len() as u16).to_le_bytes());
                h.extend_from_slice(&0u16.to_le_bytes());
                if central {
                    h.extend_from_slice(&[0; 6]);
                    h.extend_from_slice(&0u32.to_le_bytes());
                    h.extend_from_slice(&offset.to_le_bytes());
                }
                h.extend_from_slice(name.as_bytes());
                h
            };
            out.extend(header(b"PK\x03\x04", false));
            out.extend_from_slice(data);
            central.extend(header(b"PK\x01\x02", true));
        }
        let at = out.len() as u32;
        out.extend_from_slice(&central);
        out.extend_from_slice(b"PK\x05\x06\0\0\0\0");
        out.extend_from_slice(&(files.len() as u16).to_le_bytes());
        out.extend_from_slice(&(files.len() as u16).to_le_bytes());
        out.extend_from_slice(&(central.len() as u32).to_le_bytes());
        out.extend_from_slice(&at.to_le_bytes());
        out.extend_from_slice(&0u16.to_le_bytes());
        out
    }

    fn crc32(data: &[u8]) -> u32 {
        let mut crc = !0u32;
        for b in data {
            crc ^= u32::from(*b);
            for _ in 0..8 {
                crc = if crc & 1 == 1 {
                    (crc >> 1) ^ 0xEDB8_8320
                } else {
                    crc >> 1
                };
            }
        }
        !crc
    }

    #[test]
    fn a_zips_files_are_extracted_and_escaping_paths_skipped() {
        let archive = stored_zip(&[("data.txt", b"42\n"), ("dir/b.txt", b"b"), ("../x", b"x")]);
        let files = extract(&archive, 1 << 20);
        assert_eq!(
            files,
            [
                ("data.txt".to_string(), b"42\n".to_vec()),
                ("dir/b.txt".to_string(), b"b".to_vec())
            ]
        );
        assert!(extract(b"not a zip", 1 << 20).is_empty());
        assert_eq!(extract(&archive, 3).len(), 1, "the size bound");
    }
}
