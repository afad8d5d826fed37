@echo off
rem Generate every output of the project (FunnyPitch's GenTable.bat workflow):
rem   Table\*.csv|xlsx + schema\*.schema.json  ->  generated\{rust,csharp,ts,data}
rem Usage: Tools\GenTable.bat [gentable build options, e.g. --check]
rem Exit codes: 0 ok, 1 data errors (generated\ untouched) or stale files with --check, 2 configuration errors.
setlocal
cd /d "%~dp0.."
cargo run --quiet --release --locked -- build %*
exit /b %ERRORLEVEL%
