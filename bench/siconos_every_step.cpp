// The peer of bench/bouncing_ball_every_step.toml and bench/sliding_block_every_step.toml
// in Siconos 4.4's kernel (Debian's libsiconos-kernel-dev), written the way Siconos' own
// examples are (BouncingBallTS): a LagrangianLinearTIDS, a LagrangianLinearTIR, Moreau-Jean
// (theta = 0.5) in a TimeStepping, a sample of t, q, v, p and lambda stored every step in a
// SimpleMatrix and written at the end with ioMatrix::write. Same problems, step and output
// interval as the nsdyn configs (bench/bench_siconos.sh times both as whole processes).
//
//   siconos_every_step ball|block OUT_FILE [t_end = 30] [h = 1e-4]
//
// OUT_FILE "-": nothing stored or written (the simulation's own cost).
// ball:  m = 0.1 kg, r = 0.05 m, g = 9.81 m/s^2, dropped from y = 1.05 m (centre), Newton
//        restitution e = 0.5: one unilateral contact, an LCP per step (Lemke, the default).
// block: the same mass resting on the ground (y = r) launched at vx = 2 m/s, Coulomb
//        friction mu = 0.3, e = 0: a 2-D friction-contact problem per step (NSGS).
#include <SiconosKernel.hpp>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

int main(int argc, char **argv) {
    if (argc < 3 || (std::strcmp(argv[1], "ball") != 0 && std::strcmp(argv[1], "block") != 0)) {
        std::fprintf(stderr, "usage: %s ball|block OUT_FILE [t_end] [h]\n", argv[0]);
        return 2;
    }
    const bool block = std::strcmp(argv[1], "block") == 0;
    const double t0 = 0.0, T = argc > 3 ? std::atof(argv[3]) : 30.0;
    const double h = argc > 4 ? std::atof(argv[4]) : 1e-4;
    const double m = 0.1, r = 0.05, g = 9.81, theta = 0.5;
    const unsigned int ndof = 2; // x, y

    SP::SiconosVector q0(new SiconosVector(ndof)), v0(new SiconosVector(ndof));
    (*q0)(1) = block ? r : 1.05;
    (*v0)(0) = block ? 2.0 : 0.0;
    SP::SiconosMatrix mass(new SimpleMatrix(ndof, ndof));
    (*mass)(0, 0) = (*mass)(1, 1) = m;
    SP::LagrangianLinearTIDS body(new LagrangianLinearTIDS(q0, v0, mass));
    SP::SiconosVector weight(new SiconosVector(ndof));
    (*weight)(1) = -m * g;
    body->setFExtPtr(weight);

    // the gap y - r (row 0) and, for the block, the tangential coordinate x (row 1)
    const unsigned int nrel = block ? 2 : 1;
    SP::SimpleMatrix H(new SimpleMatrix(nrel, ndof));
    (*H)(0, 1) = 1.0;
    if (block) (*H)(1, 0) = 1.0;
    SP::SiconosVector b(new SiconosVector(nrel));
    (*b)(0) = -r;
    SP::Relation relation(new LagrangianLinearTIR(H, b));
    SP::NonSmoothLaw law = block ? SP::NonSmoothLaw(new NewtonImpactFrictionNSL(0.0, 0.0, 0.3, 2))
                                 : SP::NonSmoothLaw(new NewtonImpactNSL(0.5));
    SP::Interaction inter(new Interaction(law, relation));

    SP::NonSmoothDynamicalSystem nsds(new NonSmoothDynamicalSystem(t0, T));
    nsds->insertDynamicalSystem(body);
    nsds->link(inter, body);
    SP::MoreauJeanOSI osi(new MoreauJeanOSI(theta));
    SP::TimeDiscretisation td(new TimeDiscretisation(t0, h));
    SP::OneStepNSProblem osnspb = block ? SP::OneStepNSProblem(new FrictionContact(2))
                                        : SP::OneStepNSProblem(new LCP());
    SP::TimeStepping sim(new TimeStepping(nsds, td, osi, osnspb));

    const unsigned int steps = (unsigned int)((T - t0) / h + 0.5);
    const bool out = std::strcmp(argv[2], "-") != 0;
    SimpleMatrix data(out ? steps + 1 : 1, 7); // t, x, y, vx, vy, p (impulse), lambda
    SP::SiconosVector q = body->q(), v = body->velocity(), p = body->p(1);
    SP::SiconosVector lambda = inter->lambda(1);
    auto sample = [&](unsigned int k, double t) {
        if (!out) return;
        data(k, 0) = t;
        data(k, 1) = (*q)(0);
        data(k, 2) = (*q)(1);
        data(k, 3) = (*v)(0);
        data(k, 4) = (*v)(1);
        data(k, 5) = (*p)(1);
        data(k, 6) = (*lambda)(0);
    };
    sample(0, t0);
    unsigned int k = 1;
    while (sim->hasNextEvent() && k <= steps) {
        sim->computeOneStep();
        sample(k++, sim->nextTime());
        sim->nextStep();
    }
    if (out) data.resize(k, 7);
    if (out && !ioMatrix::write(argv[2], "ascii", data, "noDim")) {
        std::fprintf(stderr, "cannot write %s\n", argv[2]);
        return 1;
    }
    std::printf("%s: %u steps, final x = %.9g m, y = %.9g m, vx = %.9g m/s\n", argv[1], k - 1,
                (*q)(0), (*q)(1), (*v)(0));
    return 0;
}
