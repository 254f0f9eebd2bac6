// Generates one module per generation from hal/tables/ (see tables/README.md).
// A table that fails the checks stops the build with every problem listed.

use std::path::PathBuf;

fn main() {
    let manifest = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").unwrap());
    // BAREGPU_HAL_TABLES points the generator at another copy of the tables
    // (for example a snapshot while the working copy is being edited).
    let tables = std::env::var_os("BAREGPU_HAL_TABLES")
        .map_or_else(|| manifest.join("tables"), PathBuf::from);
    println!("cargo:rerun-if-env-changed=BAREGPU_HAL_TABLES");
    let out_dir = PathBuf::from(std::env::var("OUT_DIR").unwrap());
    println!("cargo:rerun-if-changed={}", tables.display());

    let mut failed = false;
    for name in baregpu_tablegen::GENERATIONS {
        let module = name.replace('.', "_");
        let dest = out_dir.join(format!("{module}.rs"));
        // A generation whose cargo feature is off is generated empty (its module
        // exists, with no registers, packets or device description): the Gen12.5
        // tables are about half of the generated code.
        let enabled = match name {
            "gen12.5" => std::env::var_os("CARGO_FEATURE_GEN12_5").is_some(),
            _ => true,
        };
        let tables_present = enabled && tables.join(name).join("generation.toml").exists();
        let generated = if tables_present {
            match baregpu_tablegen::load_generation(&tables, name) {
                Err(e) => {
                    println!("cargo:warning={e}");
                    failed = true;
                    continue;
                }
                Ok(mut t) => {
                    // Engines the device description adds as instances of others.
                    let device_file = tables.join(name).join("device.toml");
                    if let Ok(text) = std::fs::read_to_string(&device_file)
                        && let Err(e) = baregpu_tablegen::device::add_instances(&text, &mut t)
                    {
                        println!("cargo:warning={}: {e}", device_file.display());
                        failed = true;
                        continue;
                    }
                    let problems =
                        baregpu_tablegen::check::check_generation(&t, &Default::default());
                    for p in &problems {
                        println!("cargo:warning={name}: {p}");
                    }
                    if !problems.is_empty() {
                        failed = true;
                        continue;
                    }
                    let mut code = baregpu_tablegen::codegen::generate(&t);
                    // The device description, when the generation has one.
                    let device = match std::fs::read_to_string(&device_file) {
                        Err(_) => None,
                        Ok(text) => match baregpu_tablegen::device::parse(&text, &t) {
                            Ok(d) => Some(d),
                            Err(e) => {
                                println!("cargo:warning={}: {e}", device_file.display());
                                failed = true;
                                continue;
                            }
                        },
                    };
                    code.push_str(&baregpu_tablegen::device::generate(device.as_ref()));
                    code
                }
            }
        } else {
            // No tables yet (or the feature is off): an empty generation, so that
            // the module exists.
            let empty = baregpu_tablegen::GenerationTables {
                name: name.to_string(),
                ..Default::default()
            };
            let mut code = baregpu_tablegen::codegen::generate(&empty);
            code.push_str(&baregpu_tablegen::device::generate(None));
            code
        };
        std::fs::write(&dest, generated).unwrap();
    }
    if failed {
        panic!(
            "hal tables have problems (listed above as warnings); run `cargo run -p baregpu-tablegen --bin tablecheck`"
        );
    }
}
