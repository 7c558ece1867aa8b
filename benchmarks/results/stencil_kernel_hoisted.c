int mg_kernel(char **mg_arrays, int64_t *mg_ints, double *mg_floats) {
    int mg_err = 0;
    double *a_A = (double *)mg_arrays[0];
    const int64_t a_A_n0 = mg_ints[0];
    int64_t a_A_s0 = mg_ints[2];
    const int64_t a_A_n1 = mg_ints[1];
    const int64_t a_A_s1 = 1;
    double *a_B = (double *)mg_arrays[1];
    const int64_t a_B_n0 = mg_ints[4];
    int64_t a_B_s0 = mg_ints[6];
    const int64_t a_B_n1 = mg_ints[5];
    const int64_t a_B_s1 = 1;
    int64_t v_n = (int64_t)mg_ints[16];
    int64_t v_i = 0;
    int mg_set_v_i = 0;
    int64_t v_j = 0;
    int mg_set_v_j = 0;
    int mg_fast = 1; int64_t mg_failed = -1;
    int mg_negative = 0;  /* some wrapped subscript is negative somewhere */
    /* hoisted checks: one evaluation before the loop */
    __int128 mg_L0_lo = 0, mg_L0_hi = -1; int mg_L0_empty = 1;
    if (!0) {
        __int128 mg_h1_lo = ((__int128)v_n) - ((__int128)1LL), mg_h1_hi = ((__int128)v_n) - ((__int128)1LL);
        if (!mg_fits(mg_h1_lo, mg_h1_hi)) MG_FAIL(0);
        mg_L0_lo = ((__int128)1LL); mg_L0_hi = mg_h1_hi - 1;
        mg_L0_empty = mg_L0_lo > mg_L0_hi;
    }
    __int128 mg_L1_lo = 0, mg_L1_hi = -1; int mg_L1_empty = 1;
    if (!mg_L0_empty) {
        __int128 mg_h2_lo = ((__int128)v_n) - ((__int128)1LL), mg_h2_hi = ((__int128)v_n) - ((__int128)1LL);
        if (!mg_fits(mg_h2_lo, mg_h2_hi)) MG_FAIL(1);
        mg_L1_lo = ((__int128)1LL); mg_L1_hi = mg_h2_hi - 1;
        mg_L1_empty = mg_L1_lo > mg_L1_hi;
    }
    if (!mg_L1_empty) {  /* line 35: subscript 1 of 'B' in range */
        if (!(mg_L0_lo >= 0 && mg_L0_hi < (__int128)a_B_n0)) MG_FAIL(2);
    }
    if (!mg_L1_empty) {  /* line 35: subscript 2 of 'B' in range */
        if (!(mg_L1_lo >= 0 && mg_L1_hi < (__int128)a_B_n1)) MG_FAIL(3);
    }
    if (!mg_L1_empty) {  /* line 35: subscript 1 of 'A' in range */
        if (!(mg_L0_lo >= 0 && mg_L0_hi < (__int128)a_A_n0)) MG_FAIL(4);
    }
    if (!mg_L1_empty) {  /* line 35: subscript 2 of 'A' in range */
        if (!(mg_L1_lo >= 0 && mg_L1_hi < (__int128)a_A_n1)) MG_FAIL(5);
    }
    if (!mg_L1_empty) {  /* line 35: subscript 1 of 'A' in range */
        __int128 mg_h3_lo = mg_L0_lo - ((__int128)1LL), mg_h3_hi = mg_L0_hi - ((__int128)1LL);
        if (!mg_fits(mg_h3_lo, mg_h3_hi)) MG_FAIL(6);
        if (!(mg_h3_lo >= -(__int128)a_A_n0 && mg_h3_hi < (__int128)a_A_n0)) MG_FAIL(6);
        if (mg_h3_lo < 0) mg_negative = 1;
    }
    if (!mg_L1_empty) {  /* line 35: subscript 2 of 'A' in range */
        if (!(mg_L1_lo >= 0 && mg_L1_hi < (__int128)a_A_n1)) MG_FAIL(7);
    }
    if (!mg_L1_empty) {  /* line 35: subscript 1 of 'A' in range */
        __int128 mg_h4_lo = mg_L0_lo + ((__int128)1LL), mg_h4_hi = mg_L0_hi + ((__int128)1LL);
        if (!mg_fits(mg_h4_lo, mg_h4_hi)) MG_FAIL(8);
        if (!(mg_h4_lo >= 0 && mg_h4_hi < (__int128)a_A_n0)) MG_FAIL(8);
    }
    if (!mg_L1_empty) {  /* line 35: subscript 2 of 'A' in range */
        if (!(mg_L1_lo >= 0 && mg_L1_hi < (__int128)a_A_n1)) MG_FAIL(9);
    }
    if (!mg_L1_empty) {  /* line 35: subscript 1 of 'A' in range */
        if (!(mg_L0_lo >= 0 && mg_L0_hi < (__int128)a_A_n0)) MG_FAIL(10);
    }
    if (!mg_L1_empty) {  /* line 35: subscript 2 of 'A' in range */
        __int128 mg_h5_lo = mg_L1_lo - ((__int128)1LL), mg_h5_hi = mg_L1_hi - ((__int128)1LL);
        if (!mg_fits(mg_h5_lo, mg_h5_hi)) MG_FAIL(11);
        if (!(mg_h5_lo >= -(__int128)a_A_n1 && mg_h5_hi < (__int128)a_A_n1)) MG_FAIL(11);
        if (mg_h5_lo < 0) mg_negative = 1;
    }
    if (!mg_L1_empty) {  /* line 35: subscript 1 of 'A' in range */
        if (!(mg_L0_lo >= 0 && mg_L0_hi < (__int128)a_A_n0)) MG_FAIL(12);
    }
    if (!mg_L1_empty) {  /* line 35: subscript 2 of 'A' in range */
        __int128 mg_h6_lo = mg_L1_lo + ((__int128)1LL), mg_h6_hi = mg_L1_hi + ((__int128)1LL);
        if (!mg_fits(mg_h6_lo, mg_h6_hi)) MG_FAIL(13);
        if (!(mg_h6_lo >= 0 && mg_h6_hi < (__int128)a_A_n1)) MG_FAIL(13);
    }
    if (!0) {
        __int128 mg_h7_lo = ((__int128)v_n) - ((__int128)1LL), mg_h7_hi = ((__int128)v_n) - ((__int128)1LL);
        if (!mg_fits(mg_h7_lo, mg_h7_hi)) MG_FAIL(14);
    }
    if (!mg_L0_empty) {
        __int128 mg_h8_lo = ((__int128)v_n) - ((__int128)1LL), mg_h8_hi = ((__int128)v_n) - ((__int128)1LL);
        if (!mg_fits(mg_h8_lo, mg_h8_hi)) MG_FAIL(15);
    }
    const int mg_in_place = mg_fast && 1;
    mg_ints[22] = mg_in_place;
    if (!mg_in_place && mg_arrays[2]) {
        const int64_t shape[] = {a_A_n0, a_A_n1}, strides[] = {a_A_s0, a_A_s1};
        mg_copy_strided(mg_arrays[2], (const char *)a_A, 2, shape, strides, sizeof(*a_A));
        a_A = (double *)mg_arrays[2];
        a_A_s0 = a_A_s1 * (a_A_n1 ? a_A_n1 : 1);
    }
    if (!mg_in_place && mg_arrays[3]) {
        const int64_t shape[] = {a_B_n0, a_B_n1}, strides[] = {a_B_s0, a_B_s1};
        mg_copy_strided(mg_arrays[3], (const char *)a_B, 2, shape, strides, sizeof(*a_B));
        a_B = (double *)mg_arrays[3];
        a_B_s0 = a_B_s1 * (a_B_n1 ? a_B_n1 : 1);
    }
    if (mg_fast && !mg_negative) {
        {
            const int64_t mg_r1_start = 1LL, mg_r1_stop = (v_n - 1LL), mg_r1_step = 1LL;
            const int64_t mg_r1_trips = mg_trip_count(mg_r1_start, mg_r1_stop, mg_r1_step);
            for (int64_t mg_r1_k = 0; mg_r1_k < mg_r1_trips; mg_r1_k++) {
                v_i = mg_r1_start + mg_r1_k * mg_r1_step;
                mg_set_v_i = 1;
                {
                    const int64_t mg_r2_start = 1LL, mg_r2_stop = (v_n - 1LL), mg_r2_step = 1LL;
                    const int64_t mg_r2_trips = mg_trip_count(mg_r2_start, mg_r2_stop, mg_r2_step);
                    for (int64_t mg_r2_k = 0; mg_r2_k < mg_r2_trips; mg_r2_k++) {
                        v_j = mg_r2_start + mg_r2_k * mg_r2_step;
                        mg_set_v_j = 1;
                        a_B[v_i * a_B_s0 + v_j * a_B_s1] = (0.2 * ((((a_A[v_i * a_A_s0 + v_j * a_A_s1] + a_A[(v_i - 1LL) * a_A_s0 + v_j * a_A_s1]) + a_A[(v_i + 1LL) * a_A_s0 + v_j * a_A_s1]) + a_A[v_i * a_A_s0 + (v_j - 1LL) * a_A_s1]) + a_A[v_i * a_A_s0 + (v_j + 1LL) * a_A_s1]));
                    }
                }
            }
        }
    } else if (mg_fast) {
        {
            const int64_t mg_r3_start = 1LL, mg_r3_stop = (v_n - 1LL), mg_r3_step = 1LL;
            const int64_t mg_r3_trips = mg_trip_count(mg_r3_start, mg_r3_stop, mg_r3_step);
            for (int64_t mg_r3_k = 0; mg_r3_k < mg_r3_trips; mg_r3_k++) {
                v_i = mg_r3_start + mg_r3_k * mg_r3_step;
                mg_set_v_i = 1;
                {
                    const int64_t mg_r4_start = 1LL, mg_r4_stop = (v_n - 1LL), mg_r4_step = 1LL;
                    const int64_t mg_r4_trips = mg_trip_count(mg_r4_start, mg_r4_stop, mg_r4_step);
                    for (int64_t mg_r4_k = 0; mg_r4_k < mg_r4_trips; mg_r4_k++) {
                        v_j = mg_r4_start + mg_r4_k * mg_r4_step;
                        mg_set_v_j = 1;
                        a_B[v_i * a_B_s0 + v_j * a_B_s1] = (0.2 * ((((a_A[v_i * a_A_s0 + v_j * a_A_s1] + a_A[mg_wrap((v_i - 1LL), a_A_n0) * a_A_s0 + v_j * a_A_s1]) + a_A[(v_i + 1LL) * a_A_s0 + v_j * a_A_s1]) + a_A[v_i * a_A_s0 + mg_wrap((v_j - 1LL), a_A_n1) * a_A_s1]) + a_A[v_i * a_A_s0 + (v_j + 1LL) * a_A_s1]));
                    }
                }
            }
        }
    } else {
        {
            const int64_t mg_r5_start = 1LL, mg_r5_stop = mg_sub_i64(v_n, 1LL, &mg_err), mg_r5_step = 1LL;
            if (MG_UNLIKELY(mg_err)) {
                goto mg_exit;
            }
            const int64_t mg_r5_trips = mg_trip_count(mg_r5_start, mg_r5_stop, mg_r5_step);
            for (int64_t mg_r5_k = 0; mg_r5_k < mg_r5_trips; mg_r5_k++) {
                v_i = mg_r5_start + mg_r5_k * mg_r5_step;
                mg_set_v_i = 1;
                {
                    const int64_t mg_r6_start = 1LL, mg_r6_stop = mg_sub_i64(v_n, 1LL, &mg_err), mg_r6_step = 1LL;
                    if (MG_UNLIKELY(mg_err)) {
                        goto mg_exit;
                    }
                    const int64_t mg_r6_trips = mg_trip_count(mg_r6_start, mg_r6_stop, mg_r6_step);
                    for (int64_t mg_r6_k = 0; mg_r6_k < mg_r6_trips; mg_r6_k++) {
                        v_j = mg_r6_start + mg_r6_k * mg_r6_step;
                        mg_set_v_j = 1;
                        a_B[mg_index(v_i, a_B_n0, &mg_err) * a_B_s0 + mg_index(v_j, a_B_n1, &mg_err) * a_B_s1] = (0.2 * ((((a_A[mg_index(v_i, a_A_n0, &mg_err) * a_A_s0 + mg_index(v_j, a_A_n1, &mg_err) * a_A_s1] + a_A[mg_index(mg_sub_i64(v_i, 1LL, &mg_err), a_A_n0, &mg_err) * a_A_s0 + mg_index(v_j, a_A_n1, &mg_err) * a_A_s1]) + a_A[mg_index(mg_add_i64(v_i, 1LL, &mg_err), a_A_n0, &mg_err) * a_A_s0 + mg_index(v_j, a_A_n1, &mg_err) * a_A_s1]) + a_A[mg_index(v_i, a_A_n0, &mg_err) * a_A_s0 + mg_index(mg_sub_i64(v_j, 1LL, &mg_err), a_A_n1, &mg_err) * a_A_s1]) + a_A[mg_index(v_i, a_A_n0, &mg_err) * a_A_s0 + mg_index(mg_add_i64(v_j, 1LL, &mg_err), a_A_n1, &mg_err) * a_A_s1]));
                        if (MG_UNLIKELY(mg_err)) {
                            goto mg_exit;
                        }
                    }
                }
            }
        }
    }
mg_exit:
    mg_ints[21] = mg_failed;
    if (mg_err) return mg_err;
    mg_ints[17] = (int64_t)v_i;
    mg_ints[19] = mg_set_v_i;
    mg_ints[18] = (int64_t)v_j;
    mg_ints[20] = mg_set_v_j;
    return 0;
}
