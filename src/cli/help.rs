//! The command line's own texts in Simplified Chinese: `gentable --help`, `gentable <command> --help` and
//! clap's usage errors, with `--lang zh` or a `zh` locale (issue 17 item 4). English stays the default and
//! is clap's rendering of the derived command, untouched.
//!
//! The Chinese of every `about` and `help` text of the command tree is the line of [`ZH`] keyed by its
//! English exactly (the doc comments of `cli/mod.rs`; a unit test fails for a text without one). In
//! Chinese the help also says in Chinese what clap would print in English around it: the headings (用法,
//! 命令, 参数, 选项), a default value (默认) and the possible values (可选值, each with its own help), and the
//! `-h`/`--help`, `-V`/`--version` and `help` entries, with full-width colons after the headings and
//! Chinese placeholders (`<项目文件>`, `[选项]`: [`PLACEHOLDERS`]). A usage error (an unknown flag, a
//! missing or bad value, …) is said in Chinese instead of clap's English, with the same facts
//! ([`error_text`]).

use crate::diag::lang::Lang;
use clap::error::{ContextKind, ContextValue, ErrorKind};
use clap::{Arg, ArgAction, Command};

/// (English `about`/`help` text of the command tree, Chinese).
pub const ZH: &[(&str, &str)] = &[
    ("Config tables (CSV/Excel) + JSON Schema -> validated Rust, C# and TypeScript", "配置表（CSV/Excel）+ JSON Schema -> 经过校验的 Rust、C# 和 TypeScript"),
    ("Language of messages: en or zh (Simplified Chinese). Default: the locale (LC_ALL, LC_MESSAGES, LANG starting with zh), else English", "消息的语言：en 或 zh（简体中文）。默认按区域设置（LC_ALL、LC_MESSAGES、LANG 以 zh 开头时为中文），否则为英文"),
    ("Project file", "项目文件"),
    ("How to print diagnostics", "诊断的输出格式"),
    ("One SARIF 2.1.0 log on standard output (code-scanning UIs)", "在标准输出写一个 SARIF 2.1.0 日志（供代码扫描界面读取）"),
    ("`--deny warnings` turns warnings into errors", "`--deny warnings` 把警告当作错误"),
    ("Print only diagnostics", "只打印诊断"),
    ("Show at most N diagnostics per code per file in human and github output (0 = all; default 20, in watch 3); JSON shows all", "human 和 github 输出中，每个文件每种代码最多显示 N 条诊断（0 = 全部；默认 20，watch 中为 3）；JSON 全部显示"),
    ("Neither use nor update the incremental cache in .gentable-cache/ (the result is the same)", "不使用也不更新 .gentable-cache/ 中的增量缓存（结果相同）"),
    ("If another gentable run is using this project, stop at once (exit code 2) instead of waiting for it", "如果另一个 gentable 进程正在使用此项目，立即停止（退出码 2），而不是等待它"),
    ("Read, validate and write generated/ (the main job)", "读取、校验并写出 generated/（主要工作）"),
    ("Write nothing; exit 1 and list the stale files if generated/ differs from what the tables produce", "什么也不写；如果 generated/ 与表生成的内容不同，以退出码 1 结束并列出过期的文件"),
    ("Read and validate; write nothing", "读取并校验；什么也不写"),
    ("Print the JSON Schema of gentable.toml", "打印 gentable.toml 的 JSON Schema"),
    ("Explain a diagnostic code, e.g. `gentable explain GT0302`; without one, list every code", "解释一个诊断代码，例如 `gentable explain GT0302`；不带代码时列出全部代码"),
    ("Row-level diff of the tables between two versions: git revisions or folders (default HEAD → the working tree)", "两个版本之间表的逐行差异：git 版本或文件夹（默认 HEAD → 工作区）"),
    ("The old version: a git revision or a folder holding the project file (default HEAD)", "旧版本：git 版本，或含有项目文件的文件夹（默认 HEAD）"),
    ("The new version (default: the working tree)", "新版本（默认：工作区）"),
    ("Project file (of the working tree; folders are looked into for the same file name)", "项目文件（工作区中的；在文件夹中查找同名的文件）"),
    ("Output: human text, JSON, or Markdown for a pull-request comment", "输出：供人阅读的文本、JSON，或用于拉取请求评论的 Markdown"),
    ("Exit with 1 when the versions differ", "两个版本不同时以退出码 1 结束"),
    ("Write a static HTML report: every table as a searchable page, its pictures (x-gentable-view), every diagnostic linked to its cell", "写出静态 HTML 报告：每张表一个可搜索的页面、它的图示（x-gentable-view），每条诊断都链接到它的单元格"),
    ("The folder to write (default: report/ in the generated folder)", "要写入的文件夹（默认：生成文件夹中的 report/）"),
    ("At most N rows per table page (0 = all); rows with a diagnostic are always shown", "每个表页面最多 N 行（0 = 全部）；有诊断的行总会显示"),
    ("Print a workbook (or CSV file) as stable text, for git's textconv (`*.xlsx diff=gentable`)", "把工作簿（或 CSV 文件）打印为稳定的文本，供 git 的 textconv 使用（`*.xlsx diff=gentable`）"),
    ("Build, then rebuild on every save of a table, a schema or the project file (Ctrl-C stops)", "构建，然后在每次保存表、结构或项目文件时重新构建（Ctrl-C 停止）"),
    ("Quiet time after the last change before rebuilding, in milliseconds", "最后一次修改之后、重新构建之前的静默时间，单位毫秒"),
    ("Do not clear the terminal before each summary", "每次打印摘要前不清屏"),
    ("Make a gentable project from another tool's (docs/migrating-from-luban.md)", "由其他工具的项目生成 gentable 项目（docs/migrating-from-luban.md）"),
    ("Import a Luban project: `gentable import luban DataTables/luban.conf --out GameConfig`", "导入 Luban 项目：`gentable import luban DataTables/luban.conf --out GameConfig`"),
    ("The gentable project folder written (gentable.toml, schema/)", "写出的 gentable 项目文件夹（gentable.toml、schema/）"),
    ("Write nothing; exit 1 (GT0602) and list what a re-import would change", "什么也不写；以退出码 1（GT0602）结束并列出重新导入会改变的内容"),
    ("Offset of Luban's datetime cells (Luban uses the exporting machine's zone)", "Luban 的 datetime 单元格的时区偏移（Luban 使用导出机器的时区）"),
    ("Start a new project in DIR: gentable.toml, one example table and its schema", "在 DIR 中新建项目：gentable.toml、一张示例表和它的结构"),
    ("Print a JSON Schema guessed from a table file's header and data (CSV or a workbook sheet)", "打印从表文件的表头和数据推断出的 JSON Schema（CSV 或工作簿的工作表）"),
    ("The worksheet (default: the first)", "工作表（默认：第一个）"),
];

/// The Chinese of an English `about`/`help` text of the command tree ([`ZH`]).
pub fn zh(en: &str) -> Option<&'static str> {
    ZH.iter().find(|(e, _)| *e == en).map(|(_, z)| *z)
}

/// (English placeholder of an argument's value — clap's value name, or the argument's id in capitals —,
/// Chinese) for the Chinese help and usage: `--config <项目文件>`, `gentable diff [选项] [旧版本] [新版本]`.
/// `warnings` (`--deny warnings`) is the value itself and stays.
pub const PLACEHOLDERS: &[(&str, &str)] = &[
    ("CONFIG", "项目文件"),
    ("MESSAGE_FORMAT", "格式"),
    ("FORMAT", "格式"),
    ("LANG", "语言"),
    ("MS", "毫秒"),
    ("CODE", "代码"),
    ("OLD", "旧版本"),
    ("NEW", "新版本"),
    ("OUT", "文件夹"),
    ("FILE", "文件"),
    ("CONF", "配置文件"),
    ("TIME_ZONE", "时区"),
    ("DIR", "目录"),
    ("SHEET", "工作表"),
];

/// The Chinese placeholder of an English one ([`PLACEHOLDERS`]), if it has one (not `N`, `warnings`).
fn placeholder(en: &str) -> Option<&'static str> {
    PLACEHOLDERS.iter().find(|(e, _)| *e == en).map(|(_, z)| *z)
}

/// The help layout in Chinese: clap's default (about, usage, then the commands, arguments and options),
/// its headings in Chinese with full-width colons (`用法：`, `命令：`, `参数：`, `选项：`); a section is
/// there only when the command has something in it.
fn template(subcommands: bool, positionals: bool) -> String {
    let mut t = String::from("{before-help}{about-with-newline}\n用法：{usage}\n");
    if subcommands {
        t.push_str("\n命令：\n{subcommands}\n");
    }
    if positionals {
        t.push_str("\n参数：\n{positionals}\n");
    }
    t.push_str("\n选项：\n{options}\n{after-help}");
    t
}

/// `cmd` (the derived command tree, not yet built) with its texts in `lang`: itself in English; in
/// Chinese built, its usage lines in Chinese too (`[选项]` for clap's `[OPTIONS]`).
pub fn localize(cmd: Command, lang: Lang) -> Command {
    match lang {
        Lang::En => cmd,
        Lang::Zh => {
            let mut cmd = chinese(cmd, true);
            cmd.build();
            usages(cmd)
        }
    }
}

/// `cmd` (built) and its subcommands with their usage in Chinese: clap's own usage line, whose
/// placeholders are Chinese already ([`PLACEHOLDERS`]), with `[选项]` for its fixed `[OPTIONS]`.
fn usages(mut cmd: Command) -> Command {
    let en = cmd.render_usage().to_string();
    let u = en.strip_prefix("Usage: ").unwrap_or(&en).trim_end();
    let zh = u.replace("[OPTIONS]", "[选项]");
    each_subcommand(cmd.override_usage(zh), usages)
}

/// `cmd` with `f` applied to each of its subcommands.
fn each_subcommand(mut cmd: Command, f: impl Fn(Command) -> Command) -> Command {
    let subs: Vec<String> = cmd
        .get_subcommands()
        .map(|s| s.get_name().to_string())
        .collect();
    for s in subs {
        cmd = cmd.mut_subcommand(s, &f);
    }
    cmd
}

fn chinese(mut cmd: Command, root: bool) -> Command {
    let tr = |s: Option<&clap::builder::StyledStr>| s.map(|s| s.to_string()).and_then(|s| zh(&s));
    if let Some(a) = tr(cmd.get_about()) {
        cmd = cmd.about(a);
    }
    if let Some(a) = tr(cmd.get_long_about()) {
        cmd = cmd.long_about(a);
    }
    let ids: Vec<String> = cmd
        .get_arguments()
        .map(|a| a.get_id().to_string())
        .collect();
    for id in ids {
        cmd = cmd.mut_arg(id, chinese_arg);
    }
    let sections = template(
        cmd.has_subcommands(),
        cmd.get_positionals().next().is_some(),
    );
    cmd = cmd
        .help_template(sections)
        .subcommand_help_heading("命令")
        .subcommand_value_name("命令")
        .disable_help_flag(true)
        .arg(
            Arg::new("help")
                .short('h')
                .long("help")
                .action(ArgAction::Help)
                .help("打印帮助")
                .help_heading("选项"),
        );
    if root {
        cmd = cmd.disable_version_flag(true).arg(
            Arg::new("version")
                .short('V')
                .long("version")
                .action(ArgAction::Version)
                .help("打印版本")
                .help_heading("选项"),
        );
    }
    cmd = each_subcommand(cmd, |c| chinese(c, false));
    if cmd.has_subcommands() {
        // clap's own `help` subcommand, which it adds when the tree is built: ours, in Chinese.
        cmd = cmd.disable_help_subcommand(true).subcommand(
            Command::new("help")
                .about("打印这段帮助，或给定命令的帮助")
                .help_template(template(false, true))
                .disable_help_flag(true)
                .arg(
                    Arg::new("command")
                        .num_args(0..)
                        .value_name("命令")
                        .help("要看帮助的命令")
                        .help_heading("参数"),
                ),
        );
    }
    cmd
}

/// One argument in Chinese: its help, and what clap prints about it in English (the default value, the
/// possible values) said in Chinese instead.
fn chinese_arg(mut a: Arg) -> Arg {
    let help = a.get_help().map(|h| h.to_string());
    let mut text = help.as_deref().map(|h| zh(h).unwrap_or(h).to_string());
    let mut notes = vec![];
    let values = a.get_possible_values();
    if !values.is_empty() && a.get_action().takes_values() {
        let names: Vec<String> = values
            .iter()
            .map(|v| match v.get_help() {
                Some(h) => {
                    let h = h.to_string();
                    format!("{}（{}）", v.get_name(), zh(&h).unwrap_or(&h))
                }
                None => v.get_name().to_string(),
            })
            .collect();
        notes.push(format!("可选值：{}", names.join("、")));
        a = a.hide_possible_values(true);
    }
    let defaults: Vec<String> = a
        .get_default_values()
        .iter()
        .map(|v| v.to_string_lossy().into_owned())
        .collect();
    if !defaults.is_empty() {
        notes.push(format!("默认：{}", defaults.join("、")));
        a = a.hide_default_value(true);
    }
    if !notes.is_empty() {
        let t = text.get_or_insert_with(String::new);
        t.push_str(&format!("［{}］", notes.join("；")));
    }
    if let Some(t) = text {
        a = a.help(t);
    }
    if a.get_action().takes_values() {
        let names: Vec<clap::builder::Str> = match a.get_value_names() {
            Some(v) => v
                .iter()
                .map(|n| placeholder(n.as_str()).map_or_else(|| n.clone(), Into::into))
                .collect(),
            None => placeholder(&a.get_id().as_str().to_uppercase())
                .map(|z| vec![z.into()])
                .unwrap_or_default(),
        };
        if !names.is_empty() {
            a = a.value_names(names);
        }
    }
    let heading = if a.is_positional() {
        "参数"
    } else {
        "选项"
    };
    a.help_heading(heading)
}

/// A usage error in Chinese — what clap says in English, fact for fact: the argument, the value, the
/// possible values, the suggestion, the usage line and where to read more — or `None` for what is no error
/// (`--help`, `--version`) and for the errors clap raises about its own output (`Io`, `Format`), which it
/// prints itself. The error comes from the Chinese tree ([`localize`]), so its argument names and usage
/// carry the Chinese placeholders. Text clap adds that this function does not know (a suggestion of a
/// later clap version, a value parser's message) is given after a Chinese lead-in, never dropped.
pub fn error_text(e: &clap::Error) -> Option<String> {
    let string = |k: ContextKind| match e.get(k) {
        Some(ContextValue::String(s)) => Some(s.clone()),
        _ => None,
    };
    let strings = |k: ContextKind| match e.get(k) {
        Some(ContextValue::Strings(v)) => Some(v.clone()),
        Some(ContextValue::String(s)) => Some(vec![s.clone()]),
        _ => None,
    };
    let number = |k: ContextKind| match e.get(k) {
        Some(ContextValue::Number(n)) => Some(*n),
        _ => None,
    };
    let quoted = |v: &[String]| {
        v.iter()
            .map(|s| format!("'{s}'"))
            .collect::<Vec<_>>()
            .join("、")
    };
    let arg = string(ContextKind::InvalidArg);
    let value = string(ContextKind::InvalidValue);
    let mut out = String::from("错误：");
    match e.kind() {
        ErrorKind::DisplayHelp
        | ErrorKind::DisplayVersion
        | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand
        | ErrorKind::Io
        | ErrorKind::Format => return None,
        ErrorKind::UnknownArgument => {
            out.push_str(&format!("不认识的参数 '{}'", arg.unwrap_or_default()))
        }
        ErrorKind::InvalidSubcommand => out.push_str(&format!(
            "不认识的命令 '{}'",
            string(ContextKind::InvalidSubcommand).unwrap_or_default()
        )),
        ErrorKind::InvalidValue => {
            let arg = arg.unwrap_or_default();
            match value.as_deref() {
                None | Some("") => out.push_str(&format!("'{arg}' 需要一个值，但没有给出")),
                Some(v) => out.push_str(&format!("'{arg}' 的值 '{v}' 无效")),
            }
            if let Some(v) = strings(ContextKind::ValidValue).filter(|v| !v.is_empty()) {
                out.push_str(&format!("\n  ［可选值：{}］", v.join("、")));
            }
        }
        ErrorKind::ValueValidation => {
            out.push_str(&format!(
                "'{}' 的值 '{}' 无效",
                arg.unwrap_or_default(),
                value.unwrap_or_default()
            ));
            if let Some(source) = std::error::Error::source(e) {
                out.push_str(&format!("：{}", value_error(&source.to_string())));
            }
        }
        ErrorKind::MissingRequiredArgument => {
            out.push_str("缺少以下必需的参数：");
            for a in strings(ContextKind::InvalidArg).unwrap_or_default() {
                out.push_str(&format!("\n  {a}"));
            }
        }
        ErrorKind::MissingSubcommand => {
            out.push_str(&format!(
                "'{}' 需要一个子命令，但没有给出",
                string(ContextKind::InvalidSubcommand).unwrap_or_default()
            ));
            if let Some(v) = strings(ContextKind::ValidSubcommand).filter(|v| !v.is_empty()) {
                out.push_str(&format!("\n  ［子命令：{}］", v.join("、")));
            }
        }
        ErrorKind::ArgumentConflict => {
            let arg = arg.or_else(|| string(ContextKind::InvalidSubcommand));
            match (arg, e.get(ContextKind::PriorArg)) {
                (Some(a), Some(ContextValue::String(p))) if *p == a => {
                    out.push_str(&format!("参数 '{a}' 只能给出一次"))
                }
                (Some(a), Some(ContextValue::String(p))) => {
                    out.push_str(&format!("参数 '{a}' 不能与 '{p}' 同时使用"))
                }
                (Some(a), Some(ContextValue::Strings(v))) => {
                    out.push_str(&format!("参数 '{a}' 不能与以下参数同时使用："));
                    for p in v {
                        out.push_str(&format!("\n  {p}"));
                    }
                }
                (Some(a), _) => out.push_str(&format!("参数 '{a}' 不能与给出的其他参数同时使用")),
                (None, _) => out.push_str("有参数不能同时使用"),
            }
        }
        ErrorKind::NoEquals => out.push_str(&format!(
            "给 '{}' 赋值时需要写等号（=）",
            arg.unwrap_or_default()
        )),
        ErrorKind::TooManyValues => out.push_str(&format!(
            "'{}' 的值 '{}' 是多余的：不需要更多的值",
            arg.unwrap_or_default(),
            value.unwrap_or_default()
        )),
        ErrorKind::TooFewValues => out.push_str(&format!(
            "'{}' 需要 {} 个值，只给出了 {} 个",
            arg.unwrap_or_default(),
            number(ContextKind::MinValues).unwrap_or_default(),
            number(ContextKind::ActualNumValues).unwrap_or_default()
        )),
        ErrorKind::WrongNumberOfValues => out.push_str(&format!(
            "'{}' 需要 {} 个值，但给出了 {} 个",
            arg.unwrap_or_default(),
            number(ContextKind::ExpectedNumValues).unwrap_or_default(),
            number(ContextKind::ActualNumValues).unwrap_or_default()
        )),
        ErrorKind::InvalidUtf8 => out.push_str("参数不是有效的 UTF-8 文本"),
        _ => out.push_str(&format!("命令行有误（clap 的原文：{}）", first_line(e))),
    }
    let mut tips = vec![];
    if let Some(v) = strings(ContextKind::SuggestedSubcommand).filter(|v| !v.is_empty()) {
        tips.push(format!("有相近的命令：{}", quoted(&v)));
    }
    if let Some(v) = strings(ContextKind::SuggestedArg).filter(|v| !v.is_empty()) {
        tips.push(format!("有相近的参数：{}", quoted(&v)));
    }
    if let Some(v) = strings(ContextKind::SuggestedValue).filter(|v| !v.is_empty()) {
        tips.push(format!("有相近的值：{}", quoted(&v)));
    }
    if let Some(ContextValue::StyledStrs(v)) = e.get(ContextKind::Suggested) {
        tips.extend(v.iter().map(|t| suggestion(&t.to_string())));
    }
    if !tips.is_empty() {
        out.push('\n');
        for t in tips {
            out.push_str(&format!("\n  提示：{t}"));
        }
    }
    if let Some(ContextValue::StyledStr(u)) = e.get(ContextKind::Usage) {
        let u = u.to_string();
        let u = u.strip_prefix("Usage: ").unwrap_or(&u).trim_end();
        out.push_str(&format!("\n\n用法：{u}"));
    }
    out.push_str("\n\n更多信息请运行 '--help'。\n");
    Some(out)
}

/// The first line of clap's own text of `e` without its `error: ` (for a kind [`error_text`] does not know).
fn first_line(e: &clap::Error) -> String {
    let t = e.render().to_string();
    let l = t.lines().next().unwrap_or("");
    l.strip_prefix("error: ").unwrap_or(l).to_string()
}

/// One of clap's suggestions (`ContextKind::Suggested`) in Chinese.
fn suggestion(en: &str) -> String {
    let quoted = |s: &str| -> Option<(String, String)> {
        let (a, rest) = s
            .strip_prefix("to pass '")?
            .split_once("' as a value, use '")?;
        Some((a.to_string(), rest.strip_suffix('\'')?.to_string()))
    };
    if let Some((a, b)) = quoted(en) {
        return format!("要把 '{a}' 当作值传入，请写 '{b}'");
    }
    if let Some(a) = en
        .strip_prefix('\'')
        .and_then(|r| r.strip_suffix("' exists"))
    {
        return format!("有 '{a}'");
    }
    format!("clap 的提示：{en}")
}

/// A value parser's complaint (the standard library's number parsing) in Chinese, else after a lead-in.
fn value_error(en: &str) -> String {
    match en {
        "invalid digit found in string" => "含有不是数字的字符".to_string(),
        "cannot parse integer from empty string" => "空文本不是整数".to_string(),
        "number too large to fit in target type" => "数字太大".to_string(),
        "number too small to fit in target type" => "数字太小".to_string(),
        "invalid float literal" => "不是有效的小数".to_string(),
        _ => format!("解析器的原文：{en}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every about and help text of `cmd`'s tree (English).
    fn texts(cmd: &Command, out: &mut Vec<String>) {
        out.extend(cmd.get_about().map(|s| s.to_string()));
        out.extend(cmd.get_long_about().map(|s| s.to_string()));
        for a in cmd.get_arguments() {
            out.extend(a.get_help().map(|s| s.to_string()));
            out.extend(a.get_long_help().map(|s| s.to_string()));
            for v in a.get_possible_values() {
                out.extend(v.get_help().map(|s| s.to_string()));
            }
        }
        for s in cmd.get_subcommands() {
            texts(s, out);
        }
    }

    #[test]
    fn every_text_of_the_command_line_has_chinese() {
        let mut all = vec![];
        texts(&super::super::command(), &mut all);
        assert!(all.len() >= 30, "only {} texts", all.len());
        let missing: Vec<&String> = all.iter().filter(|t| zh(t).is_none()).collect();
        assert!(missing.is_empty(), "add to cli/help.rs ZH: {missing:#?}");
        for (_, z) in ZH {
            assert!(crate::diag::lang::has_cjk(z), "{z:?} is not Chinese");
        }
    }

    #[test]
    fn english_help_is_clap_s_own() {
        let plain = super::super::command().render_long_help().to_string();
        let en = localize(super::super::command(), Lang::En)
            .render_long_help()
            .to_string();
        assert_eq!(plain, en);
        assert!(en.contains("Usage: gentable [OPTIONS] <COMMAND>"), "{en}");
        assert!(!crate::diag::lang::has_cjk(&en));
    }
}
