# The closed-form study of the adaptive tests (sweep_adaptive.sh,
# sweep_adaptive_map.sh): a ball (point_mass, centre at initial.y, radius
# r = 0.05 m) dropped under g = 9.81 m/s^2 onto a Newton floor, solved
# tightly enough (dopri5, rtol 1e-10) that its impact times are the closed
# form's to about 1e-12 s. The config without its [sweep] tables; $1 is
# run.t_end [s]. Source it, then: { drop_ball_config "$tend"; cat <<...; } > a.toml
drop_ball_config() {
    cat << TOML
[system]
id = "point_mass"
m = 0.1
r = 0.05
g = 9.81
[contact]
id = "newton"
e = 0.5
[integrator]
id = "dopri5"
rtol = 1e-10
atol = 1e-12
[initial]
y = 1.0
[run]
t_end = $1
output_dt = 0.01
[plot]
enabled = false
TOML
}
